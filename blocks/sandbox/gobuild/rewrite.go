package gobuild

import (
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/blocks/sandbox/gorun"
)

// contextName is the name the block's code gets the program's copy of
// package contextcheck by, when it needs it.
const contextName = "flowctlcontext"

// contextFuncs are the functions of package context whose calls are made
// calls of package contextcheck's (see gorun/wrap/contextcheck).
var contextFuncs = map[string]bool{
	"WithCancel": true, "WithCancelCause": true, "WithDeadline": true, "WithDeadlineCause": true,
	"WithTimeout": true, "WithTimeoutCause": true, "WithValue": true, "WithoutCancel": true,
}

// edit is a change of the code on one line: at byte column col (1-based),
// delta bytes more than the original.
type edit struct {
	line, col, delta int
}

// rewrite is the code of a block as it is built: the imports of the
// packages a block gets a wrapper of (gorun.Wrapper: text/template and
// html/template) import the wrapper's copy in the program instead, the uses
// of the context functions name package contextcheck's, and the package
// clause's line imports it when they do. Lines stay where they are; the
// edits say how columns moved.
func rewrite(src string) (string, []edit) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "block.go", src, 0)
	if err != nil {
		return src, nil // the compiler says what is wrong
	}
	type change struct {
		off, n int // bytes of the code replaced
		text   string
	}
	var changes []change
	name := ""
	for _, spec := range f.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		if p == "context" {
			name = "context"
			if spec.Name != nil {
				name = spec.Name.Name
			}
		}
		if dir, ok := gorun.Wrapper(p); ok {
			// The wrapper's package clause names it as the original.
			changes = append(changes, change{fset.Position(spec.Path.Pos()).Offset, len(spec.Path.Value), strconv.Quote(modulePath + "/" + dir)})
		}
	}
	if name != "" && name != "_" && name != "." {
		uses := 0
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && id.Obj == nil && contextFuncs[sel.Sel.Name] {
					changes = append(changes, change{fset.Position(id.Pos()).Offset, len(name), contextName})
					uses++
				}
			}
			return true
		})
		if uses > 0 {
			// The import goes at the end of the package clause's line.
			imp := "; import " + contextName + " " + strconv.Quote(modulePath+"/wrap/contextcheck")
			changes = append(changes, change{fset.Position(f.Name.End()).Offset, 0, imp})
		}
	}
	if len(changes) == 0 {
		return src, nil
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].off < changes[j].off })
	var b strings.Builder
	var edits []edit
	prev := 0
	file := fset.File(f.Pos())
	for _, c := range changes {
		b.WriteString(src[prev:c.off])
		b.WriteString(c.text)
		p := fset.Position(file.Pos(c.off))
		edits = append(edits, edit{p.Line, p.Column, len(c.text) - c.n})
		prev = c.off + c.n
	}
	b.WriteString(src[prev:])
	return b.String(), edits
}

// originalColumn maps a column of the rewritten code back to the code's.
func originalColumn(edits []edit, line, col int) int {
	orig := col
	for _, e := range edits {
		if e.line == line && e.col < col {
			orig -= e.delta
		}
	}
	return max(orig, 1)
}
