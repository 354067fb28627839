package jsrun

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/flowctl/flowctl/blocks/sandbox"
	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// progName is the name goja gives the block's code in stack frames; frames
// of other code (eval, Function, built-ins) are told apart by it.
const progName = "block.js"

// goja's parser and compiler recurse once per level of nesting, and Go
// ends the process, rather than failing the parse, when a goroutine's
// stack passes 1 GB. Brackets cost the parser about 4 KiB of stack a
// level (a quarter of a million end the process); prefix operators,
// assignments and the like a few hundred bytes.
const (
	// maxNesting bounds how deeply brackets and template substitutions
	// may nest in a block's source.
	maxNesting = 1000
	// MaxSourceBytes bounds the size of a block's source, and with it
	// the nesting of everything else: half a million levels of "!" need
	// about 256 MiB of stack.
	MaxSourceBytes = 512 << 10
)

// Program is a compiled js block: its code and where the code stands, so
// that errors can name the block and the line of the flow file.
type Program struct {
	prog     *goja.Program
	block    string
	filename string
	line0    int // the file's line of the source's first line
	// maxOutput caps the JSON text of execute's result in bytes; 0: no
	// cap.
	maxOutput int
}

// Block is the name of the block the program was compiled from.
func (p *Program) Block() string { return p.block }

// Compile compiles a js block's source. The source must parse and define a
// function execute (a function declaration, or a var, let or const named
// execute); errors name the block and the line of the file holding the
// source.
func Compile(def *lang.BlockDef) (*Program, error) {
	c := compileSource(def.Source)
	if c.err != nil {
		return nil, c.err.at(def)
	}
	return newProgram(def, c.prog), nil
}

// Check compiles a js block's source for validation and returns its errors
// as diagnostics, with their subject at the line of the file (flow file or
// source_file) where the problem is. It runs none of the code, and returns
// nothing for blocks of other runtimes or without code (package lang
// reports a missing source).
func Check(def *lang.BlockDef) hcl.Diagnostics {
	if def.Runtime != lang.RuntimeJS || def.Source == "" {
		return nil
	}
	if len(def.Packages) > 0 {
		return checkPackages(def)
	}
	c := compileSource(def.Source)
	if c.err == nil {
		return nil
	}
	e := c.err.at(def)
	summary := "Invalid JavaScript"
	if c.err.kind == kindNoExecute {
		summary = "Missing execute function"
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf("In block %q: %s.", def.Name, strings.TrimSuffix(c.err.msg, ".")),
		Subject:  e.Range.Ptr(),
	}}
}

func newProgram(def *lang.BlockDef, prog *goja.Program) *Program {
	return &Program{prog: prog, block: def.Name, filename: def.SourceRange.Filename, line0: def.SourceLine}
}

// fileLine maps a line of the source to the line of the file holding it.
func (p *Program) fileLine(srcLine int) int {
	return sandbox.FileLine(&lang.BlockDef{SourceLine: p.line0}, srcLine)
}

// Error is the error of every problem of a js block's code or call. Its
// text names the line of the file holding the source when it is known:
// `block "x" line 7: TypeError: …`, and for compile errors the file too:
// `block "x" (flow.hcl:9): SyntaxError: …`.
type Error = sandbox.Error

// newError is the error of a call of a block; line is the file's, 0 when
// unknown.
func newError(block string, line int, msg string, cause error) *Error {
	text := ": " + msg
	if line > 0 {
		text = " line " + strconv.Itoa(line) + ": " + msg
	}
	return &Error{Block: block, Line: line, Text: text, Err: cause}
}

// compiled is the outcome of compiling one source, shared by every block
// with that source.
type compiled struct {
	prog *goja.Program
	err  *srcError
}

type errKind int

const (
	kindSyntax errKind = iota
	kindNoExecute
)

// srcError is a compile error, positioned in the source.
type srcError struct {
	kind         errKind
	line, column int // in the source; 0 when unknown
	msg          string
}

// at places a compile error in a block definition: its range is the
// character at the error's column (goja counts columns in characters), or
// the line.
func (e *srcError) at(def *lang.BlockDef) *Error {
	line := sandbox.FileLine(def, e.line)
	err := newError(def.Name, line, e.msg, nil)
	if line > 0 && def.SourceRange.Filename != "" {
		err.Text = fmt.Sprintf(" (%s:%d): %s", def.SourceRange.Filename, line, e.msg)
	}
	col := 0
	if src, ok := sandbox.SourceLine(def.Source, e.line); ok && e.column > 0 && strings.TrimSpace(src) != "" {
		col = sandbox.RuneOffset(src, e.column-1) + 1
	}
	if col > 0 {
		err.Range = sandbox.Range(def, e.line, col, 1)
	} else {
		err.Range = sandbox.Range(def, e.line, 0, 0)
	}
	return err
}

// errNoSourceMapFiles: a source map is never read from a file.
var errNoSourceMapFiles = errors.New("source maps are read from data: URLs only")

func sourceKey(src string) [32]byte { return sha256.Sum256([]byte(src)) }

// compileSource parses and compiles a source and checks that it defines
// execute, without running any of it.
func compileSource(src string) (c *compiled) {
	// A bundle (a block's source with its packages) may be larger, and
	// its inline source map (data: URLs only: no file is read) gives
	// positions in the block's own code.
	bundle := strings.HasPrefix(src, deps.BundleBanner)
	sourceMaps := parser.WithDisableSourceMaps
	if bundle {
		sourceMaps = parser.WithSourceMapLoader(func(string) ([]byte, error) { return nil, errNoSourceMapFiles })
	}
	if len(src) > MaxBundleBytes || !bundle && len(src) > MaxSourceBytes {
		return &compiled{err: &srcError{msg: fmt.Sprintf(
			"the source is %d KiB; a js block's source may be at most %d KiB", (len(src)+1023)>>10, MaxSourceBytes>>10)}}
	}
	if depth, line := nesting(src); depth > maxNesting {
		return &compiled{err: &srcError{line: line, msg: fmt.Sprintf(
			"SyntaxError: brackets nest more than %d levels deep", maxNesting)}}
	}
	// Source maps stay off: a sourceMappingURL comment would make the
	// parser read the file it names, and remap the lines errors report.
	prg, err := parser.ParseFile(nil, progName, src, 0, sourceMaps)
	if err != nil {
		var list parser.ErrorList
		var one *parser.Error
		switch {
		case errors.As(err, &list) && len(list) > 0:
			return &compiled{err: &srcError{line: list[0].Position.Line, column: list[0].Position.Column,
				msg: "SyntaxError: " + list[0].Message}}
		case errors.As(err, &one):
			return &compiled{err: &srcError{line: one.Position.Line, column: one.Position.Column,
				msg: "SyntaxError: " + one.Message}}
		}
		return &compiled{err: &srcError{msg: "SyntaxError: " + err.Error()}}
	}
	if !definesExecute(prg) {
		return &compiled{err: &srcError{kind: kindNoExecute, line: 1,
			msg: "the source does not define a function execute(input, ctx); declare one at the top level"}}
	}
	p, err := compileAST(prg)
	if err != nil {
		e := &srcError{msg: "SyntaxError: " + err.Error()}
		var se *goja.CompilerSyntaxError
		if errors.As(err, &se) {
			e.msg = "SyntaxError: " + se.Message
			if se.File != nil {
				pos := se.File.Position(se.Offset)
				e.line, e.column = pos.Line, pos.Column
			}
		}
		return &compiled{err: e}
	}
	return &compiled{prog: p}
}

// compileAST compiles a parsed program; goja panics on some compile
// errors, which become errors here.
func compileAST(prg *ast.Program) (p *goja.Program, err error) {
	defer func() {
		if x := recover(); x != nil {
			p, err = nil, fmt.Errorf("%v", x)
		}
	}()
	return goja.CompileAST(prg, false)
}

// definesExecute reports whether the program declares execute at its top
// level. Whether it is a function is checked when it runs.
func definesExecute(prg *ast.Program) bool {
	isExecute := func(list []*ast.Binding) bool {
		for _, b := range list {
			if id, ok := b.Target.(*ast.Identifier); ok && id.Name == "execute" {
				return true
			}
		}
		return false
	}
	for _, st := range prg.Body {
		switch st := st.(type) {
		case *ast.FunctionDeclaration:
			if st.Function != nil && st.Function.Name != nil && st.Function.Name.Name == "execute" {
				return true
			}
		case *ast.VariableStatement:
			if isExecute(st.List) {
				return true
			}
		case *ast.LexicalDeclaration:
			if isExecute(st.List) {
				return true
			}
		}
	}
	return false
}

// nesting returns the deepest nesting of brackets and template
// substitutions in a source, and the line where it is deepest. It skips
// strings, template text, comments and regular expression literals (told
// from division by the character before them, as tokenizers without a
// parser do). It guards the parser against sources that would exhaust its
// stack, and gives them a readable error; it is not a tokenizer, and a
// source crafted to mislead it can still reach the parser (see the package
// documentation on what a worker process is for).
func nesting(src string) (max, maxLine int) {
	var stack []byte // open brackets; '$' for a template substitution
	line := 1
	var prev byte // the last significant character of code
	push := func(c byte) {
		stack = append(stack, c)
		if len(stack) > max {
			max, maxLine = len(stack), line
		}
	}
	// skipTemplate scans template text from i (after the backquote or the
	// closing brace of a substitution) and returns the index of the
	// closing backquote or of the "{" opening a substitution, which it
	// pushes.
	skipTemplate := func(i int) int {
		for ; i < len(src); i++ {
			switch src[i] {
			case '\\':
				i++
				if i < len(src) && src[i] == '\n' {
					line++
				}
			case '\n':
				line++
			case '`':
				return i
			case '$':
				if i+1 < len(src) && src[i+1] == '{' {
					push('$')
					return i + 1
				}
			}
		}
		return i
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '\n':
			line++
			continue
		case ' ', '\t', '\r', '\f', '\v':
			continue
		case '(', '[', '{':
			push(c)
		case ')', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case '}':
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if top == '$' {
					i = skipTemplate(i + 1)
				}
			}
		case '`':
			i = skipTemplate(i + 1)
		case '\'', '"':
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if src[i] == '\\' {
					i++
					if i < len(src) && src[i] == '\n' {
						line++
					}
				}
			}
			if i < len(src) && src[i] == '\n' {
				line++
			}
		case '/':
			switch {
			case i+1 < len(src) && src[i+1] == '/':
				for i < len(src) && src[i] != '\n' {
					i++
				}
				line++
				continue // comments leave prev as it was
			case i+1 < len(src) && src[i+1] == '*':
				end := strings.Index(src[i+2:], "*/")
				if end < 0 {
					return max, maxLine
				}
				line += strings.Count(src[i:i+2+end], "\n")
				i += end + 3
				continue
			case regexCanStart(prev):
				class := false
				for i++; i < len(src) && src[i] != '\n'; i++ {
					if src[i] == '\\' {
						i++
					} else if src[i] == '[' {
						class = true
					} else if src[i] == ']' {
						class = false
					} else if src[i] == '/' && !class {
						break
					}
				}
				if i < len(src) && src[i] == '\n' {
					line++
				}
				c = 'a' // a slash after a literal divides
			}
		}
		prev = c
	}
	return max, maxLine
}

// regexCanStart reports whether a slash after prev starts a regular
// expression literal rather than a division.
func regexCanStart(prev byte) bool {
	return prev == 0 || strings.IndexByte("(,=:[!&|?{};+-*%<>~^", prev) >= 0
}
