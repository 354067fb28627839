package gobuild

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox"
	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"github.com/flowctl/flowctl/blocks/sandbox/gorun"
	"github.com/flowctl/flowctl/lang"
	"github.com/gofrs/flock"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/hashicorp/hcl/v2"
	"golang.org/x/sync/singleflight"
)

//go:embed runner/*.go
var runnerFS embed.FS

// modulePath is the module path of a program.
const modulePath = "flowctl.invalid/program"

// EnvCacheDir overrides where programs are kept (default: flowctl/go in
// the user cache directory).
const EnvCacheDir = "FLOWCTL_GO_CACHE"

// Program is a built block.
type Program struct {
	Path     string // the executable
	ExecLine int    // the line of func Execute in the block's code
}

// Builder builds programs and keeps them in a directory. It is safe for
// concurrent use.
type Builder struct {
	dir     string
	goCache string // the Go build cache; default dir/gocache
	dirErr  error

	toolOnce sync.Once
	goTool   string // the go command, "" when there is none
	goVer    string // its GOVERSION
	toolErr  error

	group singleflight.Group
	// programs are the programs found for definitions: a call looks its
	// block's up without checking or hashing its code again.
	programs *lru.Cache[*lang.BlockDef, *Program]
	mu       sync.Mutex
	built    map[string]result // by key: programs and compile errors
	count    int               // builds run, for tests
}

type result struct {
	prog  *Program
	diags hcl.Diagnostics // compile errors
	err   error
}

// New returns a builder that keeps programs in dir.
func New(dir string) *Builder {
	programs, _ := lru.New[*lang.BlockDef, *Program](256)
	return &Builder{dir: dir, goCache: filepath.Join(dir, "gocache"), built: map[string]result{}, programs: programs}
}

var defaultBuilder = sync.OnceValue(func() *Builder {
	if d := os.Getenv(EnvCacheDir); d != "" {
		return New(d)
	}
	d, err := os.UserCacheDir()
	if err != nil {
		b := New("")
		b.dirErr = fmt.Errorf("there is no user cache directory to keep compiled go blocks in (%w); set %s", err, EnvCacheDir)
		return b
	}
	return New(filepath.Join(d, "flowctl", "go"))
})

// Default is the builder that keeps programs in flowctl/go under the user
// cache directory, or in $FLOWCTL_GO_CACHE.
func Default() *Builder { return defaultBuilder() }

// Dir is where the builder keeps programs.
func (b *Builder) Dir() string { return b.dir }

// Builds is how many builds the builder has run.
func (b *Builder) Builds() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.count
}

// ErrNoToolchain is wrapped by the error of a compiled block when there
// is no Go toolchain to build it with.
var ErrNoToolchain = errors.New("the Go toolchain was not found on PATH")

// Program returns the program of a compiled go block, building it unless
// it is in the cache. A block whose code has problems returns the error a
// call fails with (a *sandbox.Error at the line of the first); without a
// Go toolchain, a *sandbox.Error at the engine argument that wraps
// ErrNoToolchain.
func (b *Builder) Program(ctx context.Context, def *lang.BlockDef) (*Program, error) {
	if p, ok := b.programs.Get(def); ok && isProgram(p.Path) {
		return p, nil
	}
	p, _, err := b.program(ctx, def)
	if err == nil {
		b.programs.Add(def, p)
	}
	return p, err
}

// Check checks a compiled go block for validate: the static checks of
// gorun.Vet, then a build (kept in the cache for the runs that follow),
// whose compile errors are reported at the block's lines. Without a Go
// toolchain the code is not built, and a warning says so.
func (b *Builder) Check(def *lang.BlockDef) hcl.Diagnostics {
	_, diags, err := b.program(context.Background(), def)
	var nl *deps.NotLockedError
	switch {
	case diags != nil:
		return diags
	case errors.As(err, &nl):
		return hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Modules not locked",
			Detail:  fmt.Sprintf("Block %q: %s; apply builds only with what the lock file says.", def.Name, nl),
			Subject: def.RequireRange.Ptr()}}
	case errors.Is(err, ErrNoToolchain):
		return hcl.Diagnostics{{
			Severity: hcl.DiagWarning,
			Summary:  "Compiled block not built",
			Detail:   fmt.Sprintf("Block %q is compiled, but there is no Go toolchain here to build (and check) it with: %s. apply and test will fail until there is one.", def.Name, b.toolErr),
			Subject:  engineRange(def).Ptr(),
		}}
	case err != nil:
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Compiled block not built",
			Detail:   err.Error() + ".",
			Subject:  engineRange(def).Ptr(),
		}}
	}
	return nil
}

// engineRange is where a diagnostic about a block's engine points.
func engineRange(def *lang.BlockDef) hcl.Range {
	if def.EngineRange.Filename != "" {
		return def.EngineRange
	}
	return def.NameRange
}

func (b *Builder) program(ctx context.Context, def *lang.BlockDef) (*Program, hcl.Diagnostics, error) {
	execLine, diags, err := gorun.Vet(def)
	if err != nil {
		return nil, diags, err
	}
	if err := b.toolchain(); err != nil {
		return nil, nil, &sandbox.Error{Block: def.Name, Range: engineRange(def), Err: ErrNoToolchain,
			Text: " is compiled (engine = \"compiled\"), which needs the Go toolchain on PATH: " + err.Error() +
				"; install Go, or run it interpreted (--go-engine interpreted)"}
	}
	if b.dirErr != nil {
		return nil, nil, fmt.Errorf("block %q cannot be built: %w", def.Name, b.dirErr)
	}
	mods, err := modulesOf(def)
	if err != nil {
		return nil, nil, err
	}
	key := b.key(def.Source + mods.keyPart())
	b.mu.Lock()
	r, ok := b.built[key]
	b.mu.Unlock()
	if !ok {
		v, err, _ := b.group.Do(key, func() (any, error) {
			return b.build(ctx, key, def, mods), nil
		})
		if err != nil {
			return nil, nil, err
		}
		r = v.(result)
		if r.err == nil || r.diags != nil {
			// Programs and compile errors are kept; a build that could
			// not run (cancelled, no space) is tried again.
			b.mu.Lock()
			b.built[key] = r
			b.mu.Unlock()
		}
	}
	if r.err != nil {
		if r.diags != nil {
			// The errors were found for this source; point them at
			// this definition's file and lines.
			diags, err := compileErrors(def, r.err.(*buildFailure).output)
			return nil, diags, err
		}
		return nil, nil, r.err
	}
	return &Program{Path: r.prog.Path, ExecLine: execLine}, nil, nil
}

// toolchain finds the go command and its version, once.
func (b *Builder) toolchain() error {
	b.toolOnce.Do(func() {
		path, err := exec.LookPath("go")
		if err != nil {
			b.toolErr = errors.New("go was not found")
			return
		}
		cmd := exec.Command(path, "env", "GOVERSION")
		cmd.Env = b.env()
		out, err := cmd.Output()
		if err != nil {
			b.toolErr = fmt.Errorf("%s env GOVERSION failed: %v", path, err)
			return
		}
		b.goTool, b.goVer = path, strings.TrimSpace(string(out))
	})
	return b.toolErr
}

// env is the environment of the go command: the user's, with a build
// cache of the builder's own and nothing that could make it download,
// use cgo, or build for another platform.
func (b *Builder) env() []string {
	return append(os.Environ(),
		"CGO_ENABLED=0", "GOTOOLCHAIN=local", "GOFLAGS=", "GOWORK=off", "GO111MODULE=on",
		"GOPROXY=off", "GOOS=", "GOARCH=", "GOEXPERIMENT=",
		"GOCACHE="+b.goCache)
}

// key is the hash a program is kept by.
func (b *Builder) key(src string) string {
	h := sha256.New()
	for _, part := range []string{runnerHash(), b.goVer, flowctlVersion(), runtime.GOOS, runtime.GOARCH, src} {
		fmt.Fprintf(h, "%d:%s\n", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

var runnerHash = sync.OnceValue(func() string {
	h := sha256.New()
	files, _ := copiedFiles()
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		fmt.Fprintf(h, "%s %d\n", f, len(files[f]))
		io.WriteString(h, files[f])
	}
	return hex.EncodeToString(h.Sum(nil))
})

// copiedFiles are the files of a program that are the same in every
// program, by their path in its module: package runner, and the wrappers
// of the packages a block gets one of in their place (gorun.WrapperFS).
func copiedFiles() (map[string]string, error) {
	files := map[string]string{}
	for _, src := range []struct {
		fsys embed.FS
		glob string
	}{{runnerFS, "runner/*.go"}, {gorun.WrapperFS, "wrap/*/*.go"}} {
		names, err := fs.Glob(src.fsys, src.glob)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if strings.HasSuffix(n, "_test.go") {
				continue
			}
			data, err := src.fsys.ReadFile(n)
			if err != nil {
				return nil, err
			}
			files[n] = string(data)
		}
	}
	return files, nil
}

var flowctlVersion = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
			v += " " + s.Value
		}
	}
	return v
})

// buildFailure is a build that ran and failed: the code does not compile.
type buildFailure struct{ output string }

func (e *buildFailure) Error() string { return "the code does not build" }

// build builds the program of key, or finds it built, under the file lock
// of key.
func (b *Builder) build(ctx context.Context, key string, def *lang.BlockDef, mods *modules) result {
	dir := filepath.Join(b.dir, key)
	path := filepath.Join(dir, "program")
	if isProgram(path) {
		return result{prog: &Program{Path: path}}
	}
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return result{err: fmt.Errorf("block %q cannot be built: %w", def.Name, err)}
	}
	lock := flock.New(filepath.Join(b.dir, key+".lock"))
	if ok, err := lock.TryLockContext(ctx, 50*time.Millisecond); err != nil || !ok {
		if err == nil {
			err = ctx.Err()
		}
		return result{err: fmt.Errorf("block %q cannot be built: waiting for another build of it: %w", def.Name, err)}
	}
	defer lock.Unlock()
	if isProgram(path) {
		return result{prog: &Program{Path: path}} // built by another process meanwhile
	}
	b.mu.Lock()
	b.count++
	b.mu.Unlock()
	tmp, err := os.MkdirTemp(b.dir, "build-")
	if err != nil {
		return result{err: fmt.Errorf("block %q cannot be built: %w", def.Name, err)}
	}
	defer os.RemoveAll(tmp)
	msg := "building go block " + def.Name
	if _, err := os.Stat(b.goCache); err != nil {
		msg += " (first build, about 10 s)" // the standard library is built too
	}
	blocks.Notify(ctx, blocks.Notice{Kind: blocks.NoticeBuild, Message: msg})
	if err := b.writeModule(tmp, def.Source, mods); err != nil {
		return result{err: fmt.Errorf("block %q cannot be built: %w", def.Name, err)}
	}
	cmd := exec.CommandContext(ctx, b.goTool, "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", "program", ".")
	cmd.Dir = tmp
	cmd.Env = mods.env(b.env())
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return result{err: fmt.Errorf("block %q was not built: %w", def.Name, ctx.Err())}
		}
		diags, cerr := compileErrors(def, string(out))
		if diags == nil {
			return result{err: cerr}
		}
		return result{diags: diags, err: &buildFailure{output: string(out)}}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return result{err: fmt.Errorf("block %q cannot be built: %w", def.Name, err)}
	}
	if err := os.Rename(filepath.Join(tmp, "program"), path); err != nil {
		return result{err: fmt.Errorf("block %q cannot be built: %w", def.Name, err)}
	}
	return result{prog: &Program{Path: path}}
}

func isProgram(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// writeModule writes a program's module into dir.
func (b *Builder) writeModule(dir, src string, mods *modules) error {
	code, _ := rewrite(src)
	goLine := ""
	if v, ok := strings.CutPrefix(b.goVer, "go"); ok && len(v) > 0 && v[0] >= '0' && v[0] <= '9' {
		goLine = "\ngo " + strings.Fields(v)[0] + "\n"
	}
	files := map[string]string{
		"go.mod":                 "module " + modulePath + "\n" + goLine + mods.require(),
		"main.go":                mainFile,
		"block/block.go":         code,
		"block/zz_flowctl_go.go": shimFile(src),
	}
	copied, err := copiedFiles()
	if err != nil {
		return err
	}
	maps.Copy(files, copied)
	if sum := mods.sum(); sum != "" {
		files["go.sum"] = sum
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

const mainFile = `package main

import (
	"` + modulePath + `/block"
	"` + modulePath + `/runner"
)

func main() { runner.Serve(block.Execute) }
`

// shimFile is the program's second file of package block: it imports the
// runner (so that the process is confined before the block's package is
// initialized) and, unless the code declares its own, defines print and
// println to write to the call's log.
func shimFile(src string) string {
	var b strings.Builder
	b.WriteString("package block\n\nimport flowctlrunner \"" + modulePath + "/runner\"\n\nvar _ = flowctlrunner.Print\n")
	own := declared(src)
	if !own["print"] {
		b.WriteString("\nfunc print(args ...any) { flowctlrunner.Print(args...) }\n")
	}
	if !own["println"] {
		b.WriteString("\nfunc println(args ...any) { flowctlrunner.Println(args...) }\n")
	}
	return b.String()
}

// declared is the set of names the code declares at package level.
func declared(src string) map[string]bool {
	f, err := parser.ParseFile(token.NewFileSet(), "block.go", src, parser.SkipObjectResolution)
	names := map[string]bool{}
	if err != nil {
		return names
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				}
			}
		}
	}
	return names
}

// compileErrorRE matches the compiler's errors in the block's code.
var compileErrorRE = regexp.MustCompile(`(?m)^(?:\./)?block/block\.go:(\d+)(?::(\d+))?: (.+)$`)

// maxCompileErrors bounds the compile errors reported.
const maxCompileErrors = 10

// compileErrors reads the go command's output of a failed build: the
// compiler's errors in the block's code as diagnostics at their lines,
// and the error a call fails with. Output that names no line of the code
// gives no diagnostics, and an error that quotes it.
func compileErrors(def *lang.BlockDef, output string) (hcl.Diagnostics, error) {
	var diags hcl.Diagnostics
	var first error
	_, edits := rewrite(def.Source)
	for _, m := range compileErrorRE.FindAllStringSubmatch(output, maxCompileErrors) {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		if col > 0 {
			col = originalColumn(edits, line, col)
		}
		msg := strings.TrimSuffix(strings.TrimSpace(m[3]), ".")
		d, err := gorun.CompileProblem(def, line, col, "The code does not compile: "+msg+".")
		diags = append(diags, d)
		if first == nil {
			first = err
		}
	}
	if first != nil {
		return diags, first
	}
	text := strings.TrimSpace(output)
	if len(text) > 2000 {
		text = text[:2000] + "…"
	}
	return nil, &sandbox.Error{Block: def.Name, Text: " could not be built: " + text, Range: engineRange(def)}
}

// ProgramArg is the first argument of a program started as a sandbox
// worker (runner.WorkerArg).
const ProgramArg = "-flowctl-compiled-worker"
