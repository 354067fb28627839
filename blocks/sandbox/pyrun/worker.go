package pyrun

import (
	_ "embed"
	"encoding/json"
	"sync"
	"time"
)

// The runner: confine.py, then runner.py, as one module.
var (
	//go:embed confine.py
	confineSource string
	//go:embed runner.py
	runnerSource string
)

// Worker is what a sandbox worker needs to become a python worker: the
// interpreter, and what it may read (Landlock's rules and the audit
// hook's). It travels from flowctl to the worker as JSON.
type Worker struct {
	Python string   `json:"python"`
	ELF    string   `json:"elf,omitempty"`
	Dirs   []string `json:"dirs"`
	Files  []string `json:"files,omitempty"`
}

var workerOnce struct {
	sync.Once
	w   *Worker
	err error
}

// Worker returns what a worker needs, found once (the first time, the
// interpreter is asked which files it maps).
func (i *Interpreter) Worker() (*Worker, error) {
	workerOnce.Do(func() {
		dirs, files, err := i.readRoots()
		if err != nil {
			workerOnce.err = err
			return
		}
		workerOnce.w = &Worker{Python: i.Path, ELF: i.ELF, Dirs: dirs, Files: files}
	})
	return workerOnce.w, workerOnce.err
}

// RunnerConfig is how the runner confines itself and what it allows.
type RunnerConfig struct {
	Memory    int64         // bytes it may grow by after start-up (RLIMIT_AS)
	CPU       time.Duration // CPU time over its life: it asks to be replaced after half
	StatFD    int           // /proc/self/stat, opened before exec; -1 for none
	Seccomp   string        // the filter to install, hex of struct sock_filter; "" for none
	SeccompNr int           // the number of the seccomp system call
	Missing   []string      // confinement layers the worker went without
	// NoAudit leaves out the audit hook, so that a test sees the
	// operating system's confinement alone.
	NoAudit bool
	// Unconfined: the worker runs without confinement (--unconfined); the
	// runner applies none of its own either.
	Unconfined bool
}

// MaxLogBytes is how much of what a call prints reaches its log; the rest
// is dropped after a "[log truncated]" line.
const MaxLogBytes = 64 << 10

// Args is the command line of a python worker: the interpreter in
// isolated mode (-I: no environment variables, no user site; -S: no site
// module; -B: no bytecode written) running the runner.
func (w *Worker) Args(c RunnerConfig) []string {
	cfg := map[string]any{
		"memory":        c.Memory,
		"cpu":           c.CPU.Seconds(),
		"statfd":        c.StatFD,
		"seccomp":       c.Seccomp,
		"seccomp_nr":    c.SeccompNr,
		"missing":       c.Missing,
		"audit":         !c.NoAudit,
		"confine":       !c.Unconfined,
		"read":          w.Dirs,
		"read_files":    append(append([]string{}, w.Files...), w.Python),
		"modules":       moduleNames(),
		"members":       members(),
		"no_submodules": []string{"asyncio"},
		"denied_names":  map[string][]string{"asyncio": asyncioDenied},
		"max_log":       MaxLogBytes,
	}
	b, _ := json.Marshal(cfg)
	return []string{w.Python, "-I", "-S", "-B", "-c", confineSource + runnerSource, string(b)}
}
