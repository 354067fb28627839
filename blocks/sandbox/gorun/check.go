package gorun

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/traefik/yaegi/stdlib"
)

// sourceName is the file name the block's code is compiled under in an
// interpreter; positions in yaegi's messages that start with it are in the
// block's code (those of yaegi's interpreted generic packages have none).
const sourceName = "block.go"

// executeType is the type Execute must have.
var executeType = reflect.TypeOf(func(context.Context, map[string]any) (map[string]any, error) { return nil, nil })

const executeSignature = "func Execute(ctx context.Context, input map[string]any) (map[string]any, error)"

// problem is something wrong with a go block's code, at a line and column
// of the code (1-based; 0 when unknown).
type problem struct {
	line, col int
	summary   string
	detail    string // a sentence about the code, without the block's name
}

// analysis is what the Go parser tells about a block's code.
type analysis struct {
	imports  []string // the allowed packages it imports, each once
	execLine int      // the line of func Execute; 0 when missing
	problems []problem
}

// analyze parses a block's code and checks what can be checked without
// compiling it: the package clause, the imports against the allowlist (and
// the packages of the modules a compiled block requires), no go
// statements, and a func Execute.
func analyze(src string, modules map[string]string) *analysis {
	an := &analysis{}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, sourceName, src, parser.AllErrors|parser.ParseComments)
	if err != nil {
		var list scanner.ErrorList
		if errors.As(err, &list) {
			for i, e := range list {
				if i == 5 {
					break
				}
				an.problems = append(an.problems, problem{e.Pos.Line, e.Pos.Column, "Go syntax error", e.Msg + "."})
			}
		}
		if len(an.problems) == 0 {
			an.problems = append(an.problems, problem{0, 0, "Go syntax error", err.Error() + "."})
		}
		return an
	}
	pos := func(p token.Pos) (int, int) {
		position := fset.Position(p)
		return position.Line, position.Column
	}
	if f.Name.Name != "block" {
		l, c := pos(f.Name.Pos())
		an.problems = append(an.problems, problem{l, c, "Invalid go block",
			fmt.Sprintf("The code is package %s; the code of a go block is package block.", f.Name.Name)})
	}
	seen := map[string]bool{}
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue // the parser reports bad paths
		}
		if !Allowed(p) && !inModules(p, modules) {
			l, c := pos(spec.Path.Pos())
			an.problems = append(an.problems, problem{l, c, "Forbidden import", forbiddenImport(p, modules)})
			continue
		}
		if !seen[p] {
			seen[p] = true
			an.imports = append(an.imports, p)
		}
	}
	names := importNames(f)
	changes := func(target ast.Expr) {
		if name, path, ok := packageVariable(target, names); ok {
			l, c := pos(target.Pos())
			an.problems = append(an.problems, problem{l, c, "Change to a package variable",
				fmt.Sprintf("The code changes %s of package %s. Go blocks may read the standard library's variables but not change them: copy the value into a variable of your own.", name, path)})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			l, c := pos(n.Pos())
			an.problems = append(an.problems, problem{l, c, "Go statement in a go block",
				"A go block cannot start goroutines: a goroutine could go on running after the call, and only the whole block can be stopped when the call times out."})
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, lhs := range n.Lhs {
					changes(lhs)
				}
			}
		case *ast.IncDecStmt:
			changes(n.X)
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				changes(n.X)
			}
		case *ast.SelectorExpr:
			id, isIdent := n.X.(*ast.Ident)
			isPkg := false
			if isIdent && id.Obj == nil {
				_, isPkg = names[id.Name]
			}
			if !isPkg && slices.Contains(removedMethods, n.Sel.Name) && importsWrapped(names) {
				l, c := pos(n.Sel.Pos())
				an.problems = append(an.problems, problem{l, c, "Function not available in go blocks",
					fmt.Sprintf("%s is not available in go blocks: they cannot read files; parse templates from strings with Parse.", n.Sel.Name)})
				return true
			}
			if isIdent && id.Obj == nil {
				if p, ok := names[id.Name]; ok {
					if why, ok := removedWhy(p, n.Sel.Name); ok {
						l, c := pos(n.Pos())
						an.problems = append(an.problems, problem{l, c, "Function not available in go blocks",
							fmt.Sprintf("%s.%s is not available in go blocks: %s.", id.Name, n.Sel.Name, why)})
					}
				}
			}
		}
		return true
	})
	for _, g := range f.Comments {
		for _, c := range g.List {
			if strings.HasPrefix(c.Text, "//go:") {
				l, col := pos(c.Pos())
				directive, _, _ := strings.Cut(c.Text, " ")
				an.problems = append(an.problems, problem{l, col, "Compiler directive in a go block",
					fmt.Sprintf("The code has the directive %s; go blocks may not give the Go compiler directives (//go: comments).", directive)})
			}
		}
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "Execute" {
			an.execLine, _ = pos(fd.Pos())
		}
	}
	if an.execLine == 0 {
		an.problems = append(an.problems, problem{0, 0, "Invalid go block",
			"The code has no func Execute; a go block's code defines " + executeSignature + "."})
	}
	return an
}

// importNames maps the names a file's imports are known by to their
// paths.
func importNames(f *ast.File) map[string]string {
	names := map[string]string{}
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		name := pkgName(p)
		if spec.Name != nil {
			name = spec.Name.Name
		}
		names[name] = p
	}
	return names
}

// importsWrapped reports whether the imports hold a package the block
// gets a wrapper of (see wrapped).
func importsWrapped(imports map[string]string) bool {
	for _, p := range imports {
		if _, ok := wrapped[p]; ok {
			return true
		}
	}
	return false
}

// packageVariable reports whether an assignment's target (or what & is
// taken of) is a package's variable or is reached through one:
// base64.StdEncoding, *base64.StdEncoding, unicode.Latin.R16[0].Lo.
func packageVariable(e ast.Expr, imports map[string]string) (name, path string, ok bool) {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.SelectorExpr:
			// A package's name resolves to no object in the file; a
			// variable that shadows it does.
			if id, isIdent := x.X.(*ast.Ident); isIdent && id.Obj == nil {
				if p, isPkg := imports[id.Name]; isPkg {
					return id.Name + "." + x.Sel.Name, p, true
				}
			}
			e = x.X
		default:
			return "", "", false
		}
	}
}

func forbiddenImport(p string, modules map[string]string) string {
	msg := fmt.Sprintf("The code imports %q, which a go block cannot use. A go block can import only these standard packages: %s",
		p, strings.Join(Packages(), ", "))
	if len(modules) > 0 {
		msg += fmt.Sprintf("; and the packages of the modules its require argument declares (%s)", lang.PackagesKey(modules))
	}
	msg += "."
	switch {
	case strings.HasPrefix(p, "os") || strings.HasPrefix(p, "io") || strings.HasPrefix(p, "net") ||
		p == "bufio" || p == "path/filepath" || p == "syscall":
		msg += " A block gets its data from its inputs; read files and call URLs with the file and http built-in blocks."
	}
	return msg
}

// problem returns the first problem found by the parser, or nil.
func (an *analysis) problem() *problem {
	if len(an.problems) == 0 {
		return nil
	}
	return &an.problems[0]
}

// typeString writes a function type as Go code would, with any.
func typeString(t reflect.Type) string {
	return strings.ReplaceAll(t.String(), "interface {}", "any")
}

var positionRE = regexp.MustCompile(`^(?:` + regexp.QuoteMeta(sourceName) + `:(\d+):(\d+): )?(?:(\d+):\d+: )?`)

// compileProblem turns a message of yaegi's compiler into a problem at the
// line it names in the block's code, its column mapped back from the
// instrumented code. A message with a position but no file name is about
// yaegi's interpreted copy of a generic package (slices.Insert,
// maps.Clone…), which some instantiations break. panicked says the
// compiler panicked rather than report an error.
func compileProblem(msg string, an *analysis, ins *instrumented, panicked bool) *problem {
	msg = strings.TrimSpace(strings.SplitN(msg, "\n", 2)[0])
	m := positionRE.FindStringSubmatch(msg)
	p := &problem{summary: "Go compile error"}
	rest := msg[len(m[0]):]
	p.detail = "The code does not compile: " + rest + "."
	if d, ok := removedSymbol(rest); ok {
		p.detail = d
	}
	switch {
	case m[1] != "":
		p.line, _ = strconv.Atoi(m[1])
		p.col, _ = strconv.Atoi(m[2])
		if ins != nil {
			p.col = ins.column(p.line, p.col)
		}
	case m[3] != "":
		p.line = an.execLine
		p.detail = "The interpreter failed on a generic standard function the code uses: " + rest + "."
		panicked = true
	}
	if panicked || unsupportedRE.MatchString(rest) {
		p.detail += yaegiNote
	}
	return p
}

var noSymbolRE = regexp.MustCompile(`^package \S+ "([^"]+)" has no symbol (\w+)$`)

// removedSymbol explains yaegi's "package fmt "fmt" has no symbol Println"
// when the symbol is one the sandbox leaves out of an allowed package
// (see allowed and fmtKept), rather than a name the package never had.
func removedSymbol(msg string) (string, bool) {
	m := noSymbolRE.FindStringSubmatch(msg)
	if m == nil || !Allowed(m[1]) {
		return "", false
	}
	why, ok := removedWhy(m[1], m[2])
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s.%s is not available in go blocks: %s (%s).", pkgName(m[1]), m[2], why, msg), true
}

// removedWhy says why the symbol name of the allowed package pkg is left
// out of the sandbox, when it is (see allowed and fmtKept).
func removedWhy(pkg, name string) (string, bool) {
	removed, ok := allowed[pkg]
	if !ok {
		return "", false
	}
	if _, ok := stdlib.Symbols[pkg+"/"+pkgName(pkg)][name]; !ok {
		return "", false
	}
	if pkg == "fmt" {
		if keptInFmt(name) {
			return "", false
		}
	} else if !slices.Contains(removed, name) {
		return "", false
	}
	switch {
	case pkg == "fmt" && strings.HasPrefix(name, "Print"):
		return "they cannot print; return values or use an error", true
	case pkg == "fmt" && (strings.HasPrefix(name, "Scan") || strings.HasPrefix(name, "Fscan")):
		return "they cannot read input; take values from the block's inputs (fmt.Sscan reads from a string)", true
	case pkg == "time":
		return "they cannot sleep or start timers; a block returns as soon as its work is done", true
	case pkg == "context" && name == "AfterFunc":
		return "they cannot run code on a goroutine of their own", true
	case strings.HasSuffix(pkg, "/template") || pkg == "archive/zip" && name == "OpenReader":
		return "they cannot read files; parse templates and archives from strings and byte slices", true
	case pkg == "mime":
		return "the MIME type tables are read from the system's files", true
	case pkg == "archive/tar":
		return "it looks up the host's user and group names", true
	case strings.HasPrefix(name, "Register"):
		return "they would change what every block of the process sees", true
	}
	return "it is left out of the sandbox", true
}

var unsupportedRE = regexp.MustCompile(`undefined: (min|max|clear)\b|undefined selector|cannot range over|nil type`)

const yaegiNote = " (Go blocks run in the yaegi interpreter, which follows Go 1.22 without min, max, clear, range over integers or functions, and with only part of slices and maps: no slices.Sort or slices.Sorted, for instance; sort.Slice and sort.Strings work.)"

// Check checks the code of a go block for validate: its syntax, package
// clause, imports (only the allowlist of Packages), the absence of go
// statements, and that it compiles with func Execute of the right type.
// Each problem is reported at its line in the flow file (or the file of
// source_file). It returns nothing for blocks of other runtimes or without
// code.
func Check(def *lang.BlockDef) hcl.Diagnostics {
	if def == nil || def.Runtime != lang.RuntimeGo || def.Source == "" {
		return nil
	}
	an := analyze(def.Source, nil)
	if len(an.problems) == 0 {
		if prob := compileOnly(def.Source, an); prob != nil {
			an.problems = append(an.problems, *prob)
		}
	}
	return problemDiags(def, an.problems)
}

// Vet checks the code of a go block as Check does but without compiling
// it, for the compiled engine, whose compiler comes after: syntax, package
// clause, imports, go statements, changes to package variables, functions
// left out of the sandbox, compiler directives and a func Execute. It
// returns the line of func Execute (0 when there is none) and the
// problems.
// The error is what a call of the block fails with when there are
// problems.
func Vet(def *lang.BlockDef) (int, hcl.Diagnostics, error) {
	an := analyze(def.Source, def.Require)
	if prob := an.problem(); prob != nil {
		return an.execLine, problemDiags(def, an.problems), compileError(def, prob)
	}
	return an.execLine, nil, nil
}

// CompileProblem is a problem the compiler found at line and column of a
// go block's code (column 0: the whole line): the diagnostic validate
// reports, and the error a call of the block fails with.
func CompileProblem(def *lang.BlockDef, line, col int, detail string) (*hcl.Diagnostic, error) {
	p := &problem{line: line, col: col, summary: "Go compile error", detail: detail}
	return problemDiags(def, []problem{*p})[0], compileError(def, p)
}

func problemDiags(def *lang.BlockDef, problems []problem) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, p := range problems {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  p.summary,
			Detail:   fmt.Sprintf("Block %q: %s", def.Name, p.detail),
			Subject:  sourceRange(def, p.line, p.col).Ptr(),
		})
	}
	return diags
}

// inModules reports whether an import path is a package of one of the
// modules a compiled block requires.
func inModules(p string, modules map[string]string) bool {
	for m := range modules {
		if p == m || strings.HasPrefix(p, m+"/") {
			return true
		}
	}
	return false
}
