package pyrun

import (
	"bufio"
	"debug/elf"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

//go:embed helper.py
var helperSource string

// EnvPython names the interpreter to use instead of python3 on PATH.
const EnvPython = "FLOWCTL_PYTHON"

// MinVersion is the oldest CPython that runs python blocks.
var MinVersion = [2]int{3, 11}

// NotFoundSummary is the summary of the diagnostic of a python block when
// there is no interpreter to run it with.
const NotFoundSummary = "Python not found"

// ErrNotFound is wrapped by the error of Find when there is no suitable
// interpreter.
var ErrNotFound = errors.New("python blocks need python3 (3.11+) on PATH or " + EnvPython + "; none was found")

// Interpreter is the CPython that runs python blocks: the executable that
// python3 on PATH (or FLOWCTL_PYTHON) turned out to run, symbolic links
// and launchers such as pyenv's shims resolved, and what it reads.
type Interpreter struct {
	Path    string // the executable
	Version [3]int
	// ELF is the executable's program interpreter (the dynamic loader),
	// which the kernel runs with it; "" when it has none.
	ELF string
	// Dirs are the directories it reads modules from (its sys.path when
	// started with -I -S) and the time zone database zoneinfo reads.
	Dirs []string
}

// VersionString is "3.11.7".
func (i *Interpreter) VersionString() string {
	return fmt.Sprintf("%d.%d.%d", i.Version[0], i.Version[1], i.Version[2])
}

var found struct {
	once   sync.Once
	interp *Interpreter
	err    error
}

// Find finds the interpreter, once per process: FLOWCTL_PYTHON, else
// python3 on PATH, started once (with the user's environment, so that a
// launcher finds its interpreter) to say what it is. An interpreter older
// than MinVersion, or none, is an error wrapping ErrNotFound that says
// what was found.
func Find() (*Interpreter, error) {
	found.once.Do(func() { found.interp, found.err = find() })
	return found.interp, found.err
}

func find() (*Interpreter, error) {
	name, from := os.Getenv(EnvPython), EnvPython
	if name == "" {
		name, from = "python3", "PATH"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		if from == EnvPython {
			return nil, fmt.Errorf("%w (%s names %s, which is not an executable file)", ErrNotFound, EnvPython, name)
		}
		return nil, ErrNotFound
	}
	h, hello, err := startHelper(path, os.Environ())
	if err != nil {
		return nil, fmt.Errorf("%w (%s did not start: %v)", ErrNotFound, path, err)
	}
	i := &Interpreter{Path: hello.Executable, Dirs: append(hello.Path, hello.TZPath...)}
	copy(i.Version[:], hello.Version)
	if i.Version[0] != MinVersion[0] || i.Version[1] < MinVersion[1] {
		h.close()
		return nil, fmt.Errorf("%w (%s is Python %s)", ErrNotFound, path, i.VersionString())
	}
	if f, err := elf.Open(i.Path); err == nil {
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				b, _ := io.ReadAll(p.Open())
				i.ELF = strings.TrimRight(string(b), "\x00")
				if r, err := filepath.EvalSymlinks(i.ELF); err == nil {
					i.ELF = r
				}
			}
		}
		f.Close()
	}
	helpers.mu.Lock()
	helpers.h = h
	helpers.interp = i
	helpers.mu.Unlock()
	h.idle()
	return i, nil
}

// Files are the files the interpreter maps once the runner's modules and
// every module of the allowlist are imported (shared libraries, its own
// extension modules), found once by asking it.
func (i *Interpreter) Files() ([]string, error) {
	filesOnce.Do(func() {
		mods := append(moduleNames(), runnerModules...)
		for m := range members() {
			mods = append(mods, m)
		}
		var reply struct {
			Files []string `json:"files"`
		}
		filesErr = ask(map[string]any{"op": "libs", "modules": mods}, &reply, time.Minute)
		files = reply.Files
	})
	return files, filesErr
}

var (
	filesOnce sync.Once
	files     []string
	filesErr  error
)

// The helper is a python process that answers flowctl's questions about
// the interpreter and parses blocks' code (helper.py): started once by
// Find, it is stopped when idle and started again when needed.
var helpers struct {
	mu     sync.Mutex
	h      *helper
	interp *Interpreter
}

// helperIdle is how long an idle helper is kept.
const helperIdle = 10 * time.Second

type helper struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	timer *time.Timer
}

type helperHello struct {
	Executable string   `json:"executable"`
	Version    []int    `json:"version"`
	Path       []string `json:"path"`
	TZPath     []string `json:"tzpath"`
}

// startHelper starts the helper with the interpreter at path and reads
// its hello.
func startHelper(path string, env []string) (*helper, helperHello, error) {
	cmd := exec.Command(path, "-I", "-S", "-B", "-c", helperSource)
	cmd.Env = env
	cmd.Dir = "/"
	cmd.SysProcAttr = helperProcAttr()
	var stderr strings.Builder
	cmd.Stderr = &limitedWriter{w: &stderr, n: 4096}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, helperHello{}, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, helperHello{}, err
	}
	if err := cmd.Start(); err != nil {
		return nil, helperHello{}, err
	}
	h := &helper{cmd: cmd, in: in, out: bufio.NewReaderSize(outPipe, 64<<10)}
	var hello helperHello
	if err := h.read(&hello, 30*time.Second); err != nil {
		h.close()
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			err = fmt.Errorf("%v: %s", err, firstLine(msg))
		}
		return nil, hello, err
	}
	if len(hello.Version) != 3 || hello.Executable == "" {
		h.close()
		return nil, hello, errors.New("it did not say what it is")
	}
	return h, hello, nil
}

// read reads the helper's next line into v, waiting at most d.
func (h *helper) read(v any, d time.Duration) error {
	t := time.AfterFunc(d, func() { h.cmd.Process.Kill() })
	line, err := h.out.ReadBytes('\n')
	if !t.Stop() {
		return fmt.Errorf("it did not answer within %s", d)
	}
	if err != nil {
		return fmt.Errorf("it stopped (%v)", err)
	}
	return json.Unmarshal(line, v)
}

// idle arms the timer that stops the helper when it is not used.
func (h *helper) idle() {
	h.timer = time.AfterFunc(helperIdle, func() {
		helpers.mu.Lock()
		defer helpers.mu.Unlock()
		if helpers.h == h {
			helpers.h = nil
			h.close()
		}
	})
}

func (h *helper) close() {
	h.in.Close()
	done := make(chan struct{})
	go func() {
		h.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		h.cmd.Process.Kill()
		<-done
	}
}

// ask sends the helper a request and reads its reply into v, starting the
// helper when it is not running. A helper that does not answer within d
// is stopped.
func ask(req any, v any, d time.Duration) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	helpers.mu.Lock()
	defer helpers.mu.Unlock()
	if helpers.interp == nil {
		return ErrNotFound
	}
	h := helpers.h
	if h == nil {
		var err error
		// The interpreter itself now, with an empty environment: -I
		// ignores the environment's PYTHON* variables anyway.
		if h, _, err = startHelper(helpers.interp.Path, []string{}); err != nil {
			return fmt.Errorf("python (%s) did not start: %w", helpers.interp.Path, err)
		}
		helpers.h = h
	} else {
		h.timer.Stop()
	}
	_, err = h.in.Write(append(b, '\n'))
	if err == nil {
		err = h.read(v, d)
	}
	if err != nil {
		helpers.h = nil
		h.close()
		return fmt.Errorf("python (%s) %w", helpers.interp.Path, err)
	}
	h.idle()
	return nil
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(b []byte) (int, error) {
	if l.n > 0 {
		k := min(len(b), l.n)
		l.w.Write(b[:k])
		l.n -= k
	}
	return len(b), nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// readRoots are the directories and files a python worker may read: what
// Landlock lets it read, and what its audit hook lets it open.
func (i *Interpreter) readRoots() (dirs, files []string, err error) {
	libs, err := i.Files()
	if err != nil {
		return nil, nil, err
	}
	dirs = slices.Clone(i.Dirs)
	under := func(p string) bool {
		return slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") })
	}
	for _, f := range libs {
		if !under(f) && f != i.Path && f != i.ELF {
			files = append(files, f)
		}
	}
	if _, err := os.Stat("/etc/ld.so.cache"); err == nil {
		files = append(files, "/etc/ld.so.cache")
	}
	return dirs, files, nil
}
