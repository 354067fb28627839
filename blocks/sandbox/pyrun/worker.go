package pyrun

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The runner: confine.py, reset.py, then runner.py, as one module.
var (
	//go:embed confine.py
	confineSource string
	//go:embed reset.py
	resetSource string
	//go:embed runner.py
	runnerSource string
	runnerCode   = confineSource + resetSource + runnerSource
)

// Worker is what a python worker needs: the interpreter, what it may read
// (Landlock's rules and the audit hook's), and the runner compiled by that
// interpreter.
type Worker struct {
	Python string   `json:"python"`
	ELF    string   `json:"elf,omitempty"`
	Dirs   []string `json:"dirs"`
	Files  []string `json:"files,omitempty"`
	// Code is the file of the runner's code object, marshalled, beside
	// the cached description: the interpreter loads it in a millisecond,
	// where compiling the runner's source takes it several (and passing
	// the code on the command line costs more still: the interpreter
	// decodes its arguments character by character). "": the worker
	// compiles the source.
	Code string `json:"code,omitempty"`
	// CodeHash is the SHA-256 of Code's content, in hex.
	CodeHash string `json:"code_hash,omitempty"`
	// Packages is the environment of a block's locked requirements
	// (package deps), or empty: the worker adds it to its module path
	// and may read it (not write it), and the block may import its
	// top-level modules besides the allowlist. Package code is not the
	// standard library: the audit hook trusts it no more than block code.
	Packages       string   `json:"-"`
	PackageModules []string `json:"-"`
	// PackageLibraries are the shared libraries outside Packages that
	// its native code loads.
	PackageLibraries []string `json:"-"`
}

// WithPackages is the worker of a block whose requirements are installed
// in dir, providing the top-level modules given, whose native code loads
// the libraries given.
func (w *Worker) WithPackages(dir string, modules, libraries []string) *Worker {
	c := *w
	c.Packages, c.PackageModules, c.PackageLibraries = dir, modules, libraries
	return &c
}

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
		w := &Worker{Python: i.Path, ELF: i.ELF, Dirs: dirs, Files: files}
		if cache != "" {
			code, err := compileRunner()
			if err != nil {
				workerOnce.err = err
				return
			}
			path := strings.TrimSuffix(cache, ".json") + ".code"
			if writeFile(path, code) == nil {
				sum := sha256.Sum256(code)
				w.Code, w.CodeHash = path, hex.EncodeToString(sum[:])
			}
		}
		workerOnce.w = w
		saveWorker(cache, w)
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
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\x00%q\x00%q\x00%q\x00%q\x00%s", i.Path, st.Size(), st.ModTime().UnixNano(), i.ELF,
		i.Dirs, moduleNames(), members(), runnerModules, runnerCode)
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
	if w.Code != "" {
		code, err := os.ReadFile(w.Code)
		sum := sha256.Sum256(code)
		if err != nil || hex.EncodeToString(sum[:]) != w.CodeHash {
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
	if b, err := json.Marshal(w); err == nil {
		writeFile(path, b)
	}
}

// writeFile writes a file of the cache whole, or not at all.
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".worker-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if err2 := tmp.Close(); err == nil && err2 == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// compileRunner has the interpreter compile the runner (the helper's
// compile), and returns the marshalled code object.
func compileRunner() ([]byte, error) {
	var reply struct {
		Code  string `json:"code"`
		Error string `json:"error"`
	}
	if err := ask(map[string]any{"op": "compile", "source": runnerCode}, &reply, time.Minute); err != nil {
		return nil, err
	}
	if reply.Error != "" || reply.Code == "" {
		return nil, fmt.Errorf("python did not compile flowctl's runner: %s", reply.Error)
	}
	return hex.DecodeString(reply.Code)
}

// RunnerConfig is how the runner confines itself and what it allows. The
// pool starts the interpreter directly; the runner confines itself before
// it reads a request, and refuses to run (it exits, saying why) when any
// of it fails but the namespaces (as a sandbox worker goes on without
// them where the kernel refuses them).
type RunnerConfig struct {
	// Limits are resource limits to set (soft and hard): RLIMIT_CPU,
	// RLIMIT_FSIZE, RLIMIT_CORE, RLIMIT_NOFILE.
	Limits []Limit
	// Memory is how many bytes the address space may grow by after
	// start-up: the runner sets resource MemoryResource (RLIMIT_AS) to its
	// size then plus Memory.
	Memory         int64
	MemoryResource int
	CPU            time.Duration // CPU time over its life: it asks to be replaced after half
	// Namespaces: the runner moves itself into a user namespace (mapping
	// only its own user and group) and a network namespace of its own;
	// where the kernel refuses, it says so in Missing of its hello.
	Namespaces bool
	// Landlock is the file descriptor of a Landlock ruleset the runner
	// enforces on itself (landlock_restrict_self, system call LandlockNr),
	// -1 for none.
	Landlock   int
	LandlockNr int
	Seccomp    string   // the filter to install, hex of struct sock_filter; "" for none
	SeccompNr  int      // the number of the seccomp system call
	Missing    []string // confinement layers the worker goes without
	// NoAudit leaves out the audit hook, so that a test sees the
	// operating system's confinement alone.
	NoAudit bool
	// NoVersions has the runner compare every dict it records after each
	// call, as where it cannot read dicts' versions (reset.py), so that a
	// test sees that way too.
	NoVersions bool
	// Unconfined: the worker runs without confinement (--unconfined); the
	// runner applies none of its own either.
	Unconfined bool
}

// Limit is a resource limit: the resource's number (RLIMIT_*), its value,
// and its name for messages.
type Limit struct {
	Resource int
	Max      uint64
	Name     string
}

// MaxLogBytes is how much of what a call prints reaches its log; the rest
// is dropped after a "[log truncated]" line.
const MaxLogBytes = 64 << 10

// loadRunner runs the runner from its compiled code, the file after the
// configuration (marshal is built into the interpreter, and io is loaded
// at its start).
const loadRunner = "import marshal, sys; exec(marshal.loads(open(sys.argv[2], 'rb').read()))"

// Args is the command line of a python worker: the interpreter in
// isolated mode (-I: no environment variables, no user site; -S: no site
// module; -B: no bytecode written) running the runner.
func (w *Worker) Args(c RunnerConfig) []string {
	limits := make([][]any, len(c.Limits))
	for i, l := range c.Limits {
		limits[i] = []any{l.Resource, l.Max, l.Name}
	}
	cfg := map[string]any{
		"limits":        limits,
		"memory":        c.Memory,
		"memory_res":    c.MemoryResource,
		"cpu":           c.CPU.Seconds(),
		"namespaces":    c.Namespaces,
		"landlock":      c.Landlock,
		"landlock_nr":   c.LandlockNr,
		"seccomp":       c.Seccomp,
		"seccomp_nr":    c.SeccompNr,
		"missing":       c.Missing,
		"audit":         !c.NoAudit,
		"versions":      !c.NoVersions,
		"confine":       !c.Unconfined,
		"read":          w.Dirs,
		"read_files":    append(append([]string{}, w.Files...), w.Python),
		"modules":       append(moduleNames(), w.PackageModules...),
		"packages":      w.Packages,
		"members":       members(),
		"no_submodules": []string{"asyncio"},
		"denied_names":  map[string][]string{"asyncio": asyncioDenied},
		"max_log":       MaxLogBytes,
	}
	b, _ := json.Marshal(cfg)
	if w.Code == "" {
		return []string{w.Python, "-I", "-S", "-B", "-c", runnerCode, string(b)}
	}
	return []string{w.Python, "-I", "-S", "-B", "-c", loadRunner, string(b), w.Code}
}
