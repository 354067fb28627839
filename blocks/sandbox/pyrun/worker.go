package pyrun

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
// interpreter, what it may read (Landlock's rules and the audit hook's),
// and the runner compiled by that interpreter. It travels from flowctl to
// the worker as JSON, but for Code, which takes arguments of its own.
type Worker struct {
	Python string   `json:"python"`
	ELF    string   `json:"elf,omitempty"`
	Dirs   []string `json:"dirs"`
	Files  []string `json:"files,omitempty"`
	// Code is the runner's code object, marshalled, in hex, in pieces of at
	// most codePiece characters (a command line argument is at most 128
	// KiB): the interpreter loads it in a millisecond, where compiling the
	// runner's source takes it several. Nil: the worker compiles the source.
	Code []string `json:"code,omitempty"`
}

// codePiece is the size of a piece of Worker.Code.
const codePiece = 64 << 10

var workerOnce struct {
	sync.Once
	w   *Worker
	err error
}

// Worker returns what a worker needs, found once per process. The files
// it may read are found by asking the interpreter which files it maps once
// it has imported every module a block may (Files), and the runner is
// compiled by it: tens of milliseconds. Both are kept in flowctl/python
// under the user cache directory, by a hash of the interpreter (its path,
// size and modification time), the directories it reads, the modules and
// the runner's source, and used again while every file they name exists.
func (i *Interpreter) Worker() (*Worker, error) {
	workerOnce.Do(func() {
		cache := workerCachePath(i)
		if w := loadWorker(cache); w != nil {
			workerOnce.w = w
			return
		}
		dirs, files, err := i.readRoots()
		if err != nil {
			workerOnce.err = err
			return
		}
		code, err := compileRunner()
		if err != nil {
			workerOnce.err = err
			return
		}
		workerOnce.w = &Worker{Python: i.Path, ELF: i.ELF, Dirs: dirs, Files: files, Code: code}
		saveWorker(cache, workerOnce.w)
	})
	return workerOnce.w, workerOnce.err
}

// workerCachePath is the file a worker's description is kept in; "" when
// there is no cache directory.
func workerCachePath(i *Interpreter) string {
	dir, err := os.UserCacheDir()
	st, err2 := os.Stat(i.Path)
	if err != nil || err2 != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\x00%q\x00%q\x00%q\x00%q\x00%s%s", i.Path, st.Size(), st.ModTime().UnixNano(), i.ELF,
		i.Dirs, moduleNames(), members(), runnerModules, confineSource, runnerSource)
	return filepath.Join(dir, "flowctl", "python", hex.EncodeToString(h.Sum(nil)[:16])+".json")
}

// loadWorker reads a kept description, nil when there is none or a file it
// names is gone.
func loadWorker(path string) *Worker {
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var w Worker
	if json.Unmarshal(b, &w) != nil || w.Python == "" {
		return nil
	}
	for _, f := range append(append([]string{w.Python, w.ELF}, w.Dirs...), w.Files...) {
		if _, err := os.Stat(f); f != "" && err != nil {
			return nil
		}
	}
	return &w
}

// saveWorker keeps a description, as well as it can: the cache only saves
// time.
func saveWorker(path string, w *Worker) {
	if path == "" {
		return
	}
	b, err := json.Marshal(w)
	if err != nil || os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".worker-*")
	if err != nil {
		return
	}
	_, err = tmp.Write(b)
	if err2 := tmp.Close(); err == nil && err2 == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}

// compileRunner has the interpreter compile the runner (the helper's
// compile), and returns the marshalled code object in pieces.
func compileRunner() ([]string, error) {
	var reply struct {
		Code  string `json:"code"`
		Error string `json:"error"`
	}
	if err := ask(map[string]any{"op": "compile", "source": confineSource + runnerSource}, &reply, time.Minute); err != nil {
		return nil, err
	}
	if reply.Error != "" || reply.Code == "" {
		return nil, fmt.Errorf("python did not compile flowctl's runner: %s", reply.Error)
	}
	var pieces []string
	for c := reply.Code; c != ""; {
		n := min(len(c), codePiece)
		pieces, c = append(pieces, c[:n]), c[n:]
	}
	return pieces, nil
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

// loadRunner runs the runner from its compiled code, the arguments after
// the configuration (marshal is built into the interpreter).
const loadRunner = "import marshal, sys; exec(marshal.loads(bytes.fromhex(''.join(sys.argv[2:]))))"

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
	if len(w.Code) == 0 {
		return []string{w.Python, "-I", "-S", "-B", "-c", confineSource + runnerSource, string(b)}
	}
	return append([]string{w.Python, "-I", "-S", "-B", "-c", loadRunner, string(b)}, w.Code...)
}
