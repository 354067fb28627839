package gobuild

import (
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// runnerName is the name the block's code gets package runner by, when it
// needs it.
const runnerName = "flowctlrunner"

// contextFuncs are the functions of package context whose calls are made
// calls of the runner's (see runner/context.go).
var contextFuncs = map[string]bool{
	"WithCancel": true, "WithCancelCause": true, "WithDeadline": true, "WithDeadlineCause": true,
	"WithTimeout": true, "WithTimeoutCause": true, "WithValue": true, "WithoutCancel": true,
}

// edit is a change of the code on one line: at byte column col (1-based),
// delta bytes more than the original.
type edit struct {
	line, col, delta int
}

// rewrite is the code of a block as it is built: the uses of the context
// functions name the runner's instead, and the package clause's line
// imports the runner when they do. Lines stay where they are; the edits
// say how columns moved.
func rewrite(src string) (string, []edit) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "block.go", src, 0)
	if err != nil {
		return src, nil // the compiler says what is wrong
	}
	name := ""
	for _, spec := range f.Imports {
		if p, _ := strconv.Unquote(spec.Path.Value); p == "context" {
			name = "context"
			if spec.Name != nil {
				name = spec.Name.Name
			}
		}
	}
	if name == "" || name == "_" || name == "." {
		return src, nil
	}
	var at []int // byte offsets of the package names to replace
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && id.Obj == nil && contextFuncs[sel.Sel.Name] {
				at = append(at, fset.Position(id.Pos()).Offset)
			}
		}
		return true
	})
	if len(at) == 0 {
		return src, nil
	}
	sort.Ints(at)
	var b strings.Builder
	var edits []edit
	prev := 0
	// The import goes at the end of the package clause's line.
	clauseEnd := fset.Position(f.Name.End()).Offset
	imp := "; import " + runnerName + " " + strconv.Quote(modulePath+"/runner")
	b.WriteString(src[:clauseEnd])
	b.WriteString(imp)
	pos := fset.Position(f.Name.End())
	edits = append(edits, edit{pos.Line, pos.Column, len(imp)})
	prev = clauseEnd
	for _, off := range at {
		b.WriteString(src[prev:off])
		b.WriteString(runnerName)
		p := fset.Position(fset.File(f.Pos()).Pos(off))
		edits = append(edits, edit{p.Line, p.Column, len(runnerName) - len(name)})
		prev = off + len(name)
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
