package gorun

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/traefik/yaegi/interp"
)

// newInterp makes an interpreter for code that imports the given allowed
// packages: the standard library reduced to them, nothing else.
//
// The options leave nothing of the process in reach: no Unrestricted, an
// empty environment and arguments, stdin empty, stdout and stderr the
// given writers, and for GOPATH a file system with no packages in it,
// where yaegi would look for the source of packages it does not hold.
func newInterp(imports []string, stdout, stderr io.Writer) (i *interp.Interpreter, err error) {
	defer func() {
		if r := recover(); r != nil {
			i, err = nil, fmt.Errorf("%v", r)
		}
	}()
	i = interp.New(interp.Options{
		GoPath:               "gopath",
		SourcecodeFilesystem: namingFS{},
		Stdin:                strings.NewReader(""),
		Stdout:               stdout,
		Stderr:               stderr,
		Args:                 []string{},
		Env:                  []string{},
	})
	if err := i.Use(exports(imports)); err != nil {
		return nil, fmt.Errorf("loading the standard packages: %w", err)
	}
	for _, s := range genericSources(imports) {
		if _, err := i.Compile(s); err != nil {
			return nil, fmt.Errorf("compiling the generic standard packages: %w", err)
		}
	}
	// yaegi names positions in code given as text after the last file it
	// evaluated by path (the generic packages above are "_.go", which it
	// leaves out of messages). Evaluating an empty package from the file
	// sourceName makes the block's code, evaluated next, sourceName too.
	if _, err := i.EvalPath(sourceName); err != nil {
		return nil, fmt.Errorf("naming the code: %w", err)
	}
	return i, nil
}

// namingFS is the interpreter's source file system: it holds sourceName,
// an empty package (see newInterp), and nothing else. (yaegi's CompilePath
// would read the real file system; EvalPath reads this one.)
type namingFS struct{}

const namingSource = "package flowctlnaming\n"

func (namingFS) Open(name string) (fs.File, error) {
	if name != sourceName {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{Reader: strings.NewReader(namingSource)}, nil
}

type memFile struct{ *strings.Reader }

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{}, nil }
func (f *memFile) Close() error               { return nil }

type memInfo struct{}

func (memInfo) Name() string       { return sourceName }
func (memInfo) Size() int64        { return int64(len(namingSource)) }
func (memInfo) Mode() fs.FileMode  { return 0o444 }
func (memInfo) ModTime() time.Time { return time.Time{} }
func (memInfo) IsDir() bool        { return false }
func (memInfo) Sys() any           { return nil }

// compileOnly compiles a block's code (which analyze found no problem in)
// without running any of it, and checks the type of Execute.
func compileOnly(src string, an *analysis) (prob *problem) {
	ins, err := instrument(src)
	if err != nil {
		return compileProblem(err.Error(), an, nil, false)
	}
	i, err := newInterp(an.imports, io.Discard, io.Discard)
	if err != nil {
		return &problem{0, 0, "Go compile error", "The interpreter could not start: " + err.Error() + "."}
	}
	defer func() {
		// yaegi panics on some code it cannot compile.
		if r := recover(); r != nil {
			prob = compileProblem(fmt.Sprint(r), an, ins, true)
		}
	}()
	if _, err := i.Compile(ins.code); err != nil {
		return compileProblem(err.Error(), an, ins, false)
	}
	return checkExecute(i, an)
}

// checkExecute checks the type of block.Execute in an interpreter holding
// the code. Evaluating the selector runs none of the code.
func checkExecute(i *interp.Interpreter, an *analysis) *problem {
	fn, err := i.Eval("block.Execute")
	if err == nil && fn.IsValid() && fn.Type() == executeType {
		return nil
	}
	got := "not a function"
	if err == nil && fn.IsValid() {
		got = typeString(fn.Type())
	}
	return &problem{an.execLine, 0, "Invalid go block", fmt.Sprintf("Execute is %s; it must be %s.", got, executeSignature)}
}

// isPanic reports whether err is a panic of interpreted code.
func isPanic(err error) (interp.Panic, bool) {
	var p interp.Panic
	ok := errors.As(err, &p)
	return p, ok
}
