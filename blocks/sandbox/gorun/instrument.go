package gorun

import (
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// The code of a block runs instrumented: text is inserted into it, on the
// lines it belongs to so that no line moves, for two purposes.
//
// Placing panics. yaegi's own report of where a panic happened (the lines
// it writes to stderr) is unreliable: it looks for the node whose closure
// has the same code as the one that panicked, so it often names another
// statement of the same kind. Instead, each statement of each statement
// list is preceded by
//
//	FlowctlLine_ = N;
//
// (N its line; statements that cannot panic, such as i++ or n += i, are
// left alone), and a panic is reported at the line the variable holds:
// the line of the statement that was running, or of the last statement of
// an interpreted function it called before panicking (x := f() + s[9]).
// Expressions outside statement lists (an else-if condition, a loop's
// condition and post statement) report the statement before them. The
// assignment costs little next to the statement.
//
// Bounding recursion. Each interpreted call takes about a kilobyte of Go
// stack, so a recursion a million calls deep exhausts Go's 1 GB stack
// limit: a fatal error that ends the whole process, which no recover and
// no timeout can prevent. The functions that can call themselves, as far
// as the names in the file tell (functions and methods in a cycle of
// calls, and closures assigned to a variable they call), start with
//
//	FlowctlDepth_++; defer func() { FlowctlDepth_-- }(); if FlowctlDepth_ > maxDepth { panic(…) };
//
// Recursion through function values passed around is not seen. The limit
// is low because unwinding a panic through interpreted frames costs time
// quadratic in their number (yaegi recovers and panics again in each
// frame, and the Go runtime scans the stack for each new panic): about a
// second for 5000 frames, minutes for 50000.
const (
	lineVar  = "FlowctlLine_"
	depthVar = "FlowctlDepth_"
	maxDepth = 5000
)

var depthGuard = depthVar + "++; defer func() { " + depthVar + "-- }(); if " + depthVar + " > " + strconv.Itoa(maxDepth) +
	` { panic("recursion deeper than ` + strconv.Itoa(maxDepth) + ` calls (the limit of go blocks)") }; `

// instrumented is a block's code with the insertions.
type instrumented struct {
	code string
	ins  map[int][]insertion // the insertions on each line, in order
}

// insertion is text inserted before column col (1-based, of the original
// line), n bytes long.
type insertion struct{ col, n int }

// instrument makes the instrumented code of src, which must parse, and
// declares the variables at its end.
func instrument(src string) (*instrumented, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, sourceName, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	type insert struct {
		at   token.Pos
		text string // "" for the line assignment
	}
	var inserts []insert
	for _, body := range recursiveBodies(f) {
		inserts = append(inserts, insert{body.Lbrace + 1, depthGuard})
	}
	clauses := map[*ast.BlockStmt]bool{} // switch and select bodies hold clauses
	add := func(list []ast.Stmt) {
		for _, s := range list {
			if mayPanic(s) {
				inserts = append(inserts, insert{s.Pos(), ""})
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SwitchStmt:
			clauses[n.Body] = true
		case *ast.TypeSwitchStmt:
			clauses[n.Body] = true
		case *ast.SelectStmt:
			clauses[n.Body] = true
		case *ast.BlockStmt:
			if !clauses[n] {
				add(n.List)
			}
		case *ast.CaseClause:
			add(n.Body)
		case *ast.CommClause:
			add(n.Body)
		}
		return true
	})
	// By position; at one position, the guard before the line assignment.
	sort.SliceStable(inserts, func(i, j int) bool { return inserts[i].at < inserts[j].at })
	in := &instrumented{ins: map[int][]insertion{}}
	var b strings.Builder
	last := 0
	for _, ins := range inserts {
		pos := fset.Position(ins.at)
		text := ins.text
		if text == "" {
			text = lineVar + " = " + strconv.Itoa(pos.Line) + "; "
		}
		b.WriteString(src[last:pos.Offset])
		b.WriteString(text)
		last = pos.Offset
		in.ins[pos.Line] = append(in.ins[pos.Line], insertion{pos.Column, len(text)})
	}
	b.WriteString(src[last:])
	b.WriteString("\n\nvar " + lineVar + ", " + depthVar + " int\n")
	in.code = b.String()
	return in, nil
}

// column maps a column of a line of the instrumented code to the column of
// the original line (a column inside inserted text maps to where the text
// was inserted).
func (in *instrumented) column(line, col int) int {
	shift := 0
	for _, ins := range in.ins[line] {
		start := ins.col + shift // where the insertion begins in the instrumented line
		if col < start {
			break
		}
		if col < start+ins.n {
			return ins.col
		}
		shift += ins.n
	}
	return col - shift
}

// recursiveBodies returns the bodies of the functions that may call
// themselves: top-level functions and methods in a cycle of the call graph
// built from names (a call x.m() is taken as a call of every method m),
// with the calls made in closures counted as calls of the enclosing
// function; and closures assigned to a variable (v = func…) that call v.
func recursiveBodies(f *ast.File) []*ast.BlockStmt {
	key := func(d *ast.FuncDecl) string {
		if d.Recv != nil {
			return "m." + d.Name.Name
		}
		return "f." + d.Name.Name
	}
	decls := map[string][]*ast.FuncDecl{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			decls[key(fd)] = append(decls[key(fd)], fd)
		}
	}
	calls := map[string]map[string]bool{}
	var bodies []*ast.BlockStmt
	for k, ds := range decls {
		calls[k] = map[string]bool{}
		for _, d := range ds {
			ast.Inspect(d.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					switch fn := ast.Unparen(n.Fun).(type) {
					case *ast.Ident:
						calls[k]["f."+fn.Name] = true
					case *ast.SelectorExpr:
						calls[k]["m."+fn.Sel.Name] = true
					}
				case *ast.AssignStmt:
					for i, lhs := range n.Lhs {
						if i < len(n.Rhs) {
							bodies = append(bodies, selfCalling(lhs, n.Rhs[i])...)
						}
					}
				}
				return true
			})
		}
	}
	// A function is recursive when it reaches itself.
	for k, ds := range decls {
		seen := map[string]bool{}
		var reaches func(from string) bool
		reaches = func(from string) bool {
			for to := range calls[from] {
				if to == k {
					return true
				}
				if !seen[to] && calls[to] != nil {
					seen[to] = true
					if reaches(to) {
						return true
					}
				}
			}
			return false
		}
		if reaches(k) {
			for _, d := range ds {
				bodies = append(bodies, d.Body)
			}
		}
	}
	sort.Slice(bodies, func(i, j int) bool { return bodies[i].Lbrace < bodies[j].Lbrace })
	return bodies
}

// selfCalling returns the body of rhs when it is a closure that calls the
// variable lhs it is assigned to.
func selfCalling(lhs, rhs ast.Expr) []*ast.BlockStmt {
	v, ok := lhs.(*ast.Ident)
	lit, ok2 := rhs.(*ast.FuncLit)
	if !ok || !ok2 {
		return nil
	}
	found := false
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := ast.Unparen(c.Fun).(*ast.Ident); ok && id.Name == v.Name {
				found = true
			}
		}
		return !found
	})
	if found {
		return []*ast.BlockStmt{lit.Body}
	}
	return nil
}

// mayPanic reports whether a statement may panic, as far as its syntax
// tells: only simple statements over names and literals with operators
// that cannot fail (no division, shift, index, call, conversion, selector
// or dereference) are sure not to.
func mayPanic(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.EmptyStmt, *ast.BranchStmt:
		return false
	case *ast.IncDecStmt:
		return !safeExpr(s.X)
	case *ast.AssignStmt:
		switch s.Tok {
		case token.QUO_ASSIGN, token.REM_ASSIGN, token.SHL_ASSIGN, token.SHR_ASSIGN:
			return true
		}
		for _, e := range s.Lhs {
			if !safeExpr(e) {
				return true
			}
		}
		for _, e := range s.Rhs {
			if !safeExpr(e) {
				return true
			}
		}
		return false
	}
	return true
}

func safeExpr(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return safeExpr(e.X)
	case *ast.UnaryExpr:
		return e.Op != token.ARROW && e.Op != token.AND && safeExpr(e.X)
	case *ast.BinaryExpr:
		switch e.Op {
		case token.QUO, token.REM, token.SHL, token.SHR:
			return false
		}
		return safeExpr(e.X) && safeExpr(e.Y)
	}
	return false
}
