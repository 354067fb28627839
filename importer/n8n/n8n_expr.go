package n8n

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"
	"github.com/flowctl/flowctl/importer"
)

// n8n expressions. A parameter whose string starts with "=" is an
// expression: text with {{ JavaScript }} parts. Those that are plain
// references and arithmetic become HCL; the others are evaluated by goja,
// in a step of the n8n_code block (mode "expressions") that computes them
// for each item, as n8n does.

// n8nScope is where a node's expressions are evaluated: the current item
// ($json) and its index, the node's input items.
// jsExprs are a node's expressions that goja evaluates, by name, in order.
type jsExprs struct {
	step    string // the name of the step that evaluates them
	members []importer.Member
	src     []string
	at      []*importer.JV
	names   map[string]bool
}

type n8nScope struct {
	n     *n8n
	node  *n8nNode
	item  importer.Expr // $json: each.value, or the variable of a for expression
	index importer.Expr // $itemIndex
	input n8nItems      // $input
	// js are the expressions goja evaluates, shared with the scopes made
	// from this one.
	js      *jsExprs
	perItem bool // the node's step has for_each over its input items
	// env: $env.NAME is the environment variable NAME, a secret (set
	// where the values go only into a request: an http step's outputs are
	// not sensitive).
	env bool
}

func (n *n8n) scope(node *n8nNode, in n8nItems, perItem bool) *n8nScope {
	s := &n8nScope{n: n, node: node, input: in, js: &jsExprs{names: map[string]bool{}}, perItem: perItem}
	if perItem {
		s.item, s.index = importer.Code("each.value"), importer.Code("each.key")
	} else {
		s.item, s.index = importer.Index(in.e, 0), importer.Code("0")
	}
	return s
}

// forItem returns the scope for a for expression over the input items
// whose variables are i and item.
func (s *n8nScope) forItem() *n8nScope {
	c := *s
	c.item, c.index = importer.Code("item"), importer.Code("i")
	return &c
}

// value is a parameter's value: a literal as it is, an expression as HCL
// or as the value goja gives. path names the parameter in the generated
// code and in messages.
func (s *n8nScope) value(v *importer.JV, path string) importer.Expr {
	if v == nil {
		return importer.Code("null")
	}
	if v.Kind != 's' {
		return importer.JsonLiteral(v)
	}
	if !strings.HasPrefix(v.Str, "=") {
		return importer.Template(s.n.HideCredentials([]importer.TPart{{Lit: v.Str}}, fmt.Sprintf("n8n node %q", s.node.name)), false)
	}
	if e, ok := s.translate(v.Str[1:], v); ok {
		return e
	}
	return s.goja(v, path)
}

// textValue is like value, for a parameter n8n reads as text.
func (s *n8nScope) textValue(v *importer.JV, path string) importer.Expr {
	if v != nil && v.Kind == 'n' {
		return importer.Str(v.Num)
	}
	if v != nil && v.Kind == 'b' {
		return importer.Str(fmt.Sprint(v.Bool))
	}
	return s.value(v, path)
}

// goja registers an expression for goja and returns its value.
func (s *n8nScope) goja(v *importer.JV, path string) importer.Expr {
	src, _ := rewriteIf(v.Str)  // n8n_exprif.go
	rest, why := s.n8nTime(src) // n8n_time.go
	if why != "" {
		msg := s.n.Problem(s.node.where, v, "Unsupported expression", why)
		return importer.Call("throw_error", importer.Str(msg))
	}
	if bad := unsupportedN8NName.FindString(rest); bad != "" {
		msg := s.n.Problem(s.node.where, v, "Unsupported expression",
			fmt.Sprintf("the expression uses %s, which flowctl's evaluation of n8n expressions does not have (it has $json, $input, $('Node'), $node, $itemIndex, $workflow.name and JavaScript's built-ins).", bad))
		return importer.Call("throw_error", importer.Str(msg)) // never reached: the node becomes a gap
	}
	if bad := unknownN8NName(rest); bad != "" {
		msg := s.n.Problem(s.node.where, v, "Unsupported expression",
			fmt.Sprintf("the expression uses %s, which flowctl's evaluation of n8n expressions does not have (it has $json, $input, $('Node'), $node, $items, $itemIndex, $runIndex, $prevNode, $workflow.name and JavaScript's built-ins).", bad))
		return importer.Call("throw_error", importer.Str(msg))
	}
	name := importer.Snake(path)
	if name == "" {
		name = "value"
	}
	for i := 2; s.js.names[name]; i++ {
		name = fmt.Sprintf("%s_%d", importer.Snake(path), i)
	}
	s.js.names[name] = true
	s.js.members = append(s.js.members, importer.Member{Name: name, Value: importer.Text(src)})
	s.js.src = append(s.js.src, src)
	s.js.at = append(s.js.at, v)
	if s.js.step == "" {
		s.js.step = s.n.Name("step", s.node.step+"_js", s.node.step+"_js")
	}
	if s.perItem {
		return importer.Index(importer.Ref("step", s.js.step), s.index, "values", name)
	}
	return importer.Ref("step", s.js.step, "values", name)
}

// unsupportedN8NName finds what n8n's expressions have and the adapter
// does not: luxon dates, JMESPath, variables, the environment, AI.
var unsupportedN8NName = regexp.MustCompile(`\$(now|today|jmespath|vars|env|fromAI|execution|secrets|evaluateExpression|getWorkflowStaticData|agentInfo)\b|\bDateTime\b|\bDuration\b|\bInterval\b`)

// translate turns an expression into HCL when each {{ }} part is a plain
// reference or arithmetic over them.
func (s *n8nScope) translate(src string, at *importer.JV) (importer.Expr, bool) {
	chunks := splitN8N(src)
	if len(chunks) == 2 && !chunks[0].code && chunks[0].text == "" && chunks[1].code {
		return s.js2hcl(chunks[1].text, at)
	}
	var parts []importer.TPart
	for _, c := range chunks {
		if !c.code {
			parts = append(parts, importer.TPart{Lit: c.text})
			continue
		}
		e, ok := s.textChunk(c.text, at)
		if !ok {
			return nil, false
		}
		parts = append(parts, importer.TPart{Expr: e})
	}
	return importer.Template(parts, false), true
}

// textChunk translates the {{ }} part src of a text (textPart); a field
// of another node's item is so too: the item must exist (a missing item
// is an error, as in n8n), the field in it need not.
func (s *n8nScope) textChunk(src string, at *importer.JV) (importer.Expr, bool) {
	v, ok := s.js2value(src, at)
	if !ok {
		return nil, false
	}
	if v.item != nil && len(v.path) > 0 {
		return importer.Join("[for it in [", v.item, "] : ", importer.Call("coalesce", importer.Call("try", importer.Index(importer.Code("it"), v.path...), importer.Code("null")), importer.Str("")), "][0]"), true
	}
	return textPart(src, v.expr()), true
}

// textPart is e, the translation of the {{ }} part src of a text: n8n
// joins a text's parts as JavaScript's join does, so a field of the
// current item that it lacks (undefined), or null, is "", as is a path
// through one (the TypeError is caught).
func textPart(src string, e importer.Expr) importer.Expr {
	if !jsonPath.MatchString(src) {
		return e
	}
	return importer.Call("coalesce", importer.Call("try", e, importer.Code("null")), importer.Str(""))
}

// jsonPath is a reference to a field of the current item, $json.a.b or
// $json["a"][0].
var jsonPath = regexp.MustCompile(`^\s*\$json(\.[A-Za-z_$][A-Za-z0-9_$]*|\[("[^"]*"|'[^']*'|[0-9]+)\])+\s*$`)

type n8nChunk struct {
	code       bool
	text       string
	start, end int // of a code chunk with its braces, in the source
}

// splitN8N cuts an expression into text and code as n8n does: {{ opens
// code unless a backslash escapes it, and the next }} closes it.
func splitN8N(src string) []n8nChunk {
	var chunks []n8nChunk
	open := true
	var buf strings.Builder
	codeStart := 0
	for i := 0; i < len(src); {
		rest := src[i:]
		mark := "{{"
		if !open {
			mark = "}}"
		}
		at := strings.Index(rest, mark)
		if at < 0 {
			buf.WriteString(rest)
			chunks = append(chunks, n8nChunk{code: !open, text: buf.String(), start: codeStart, end: len(src)})
			return chunks
		}
		before := rest[:at]
		if n := len(before) - len(strings.TrimRight(before, `\`)); n%2 == 1 {
			buf.WriteString(rest[:at+2])
			i += at + 2
			continue
		}
		buf.WriteString(before)
		t := buf.String()
		c := n8nChunk{code: !open, text: t}
		if open {
			c.text = strings.ReplaceAll(t, `\\`, `\`)
			codeStart = i + at
		} else {
			c.text = strings.Replace(t, `\}}`, `}}`, 1)
			c.start, c.end = codeStart, i+at+2
		}
		chunks = append(chunks, c)
		open = !open
		buf.Reset()
		i += at + 2
	}
	if buf.Len() > 0 || len(chunks) == 0 {
		chunks = append(chunks, n8nChunk{code: !open, text: buf.String(), start: codeStart, end: len(src)})
	}
	return chunks
}

// js2hcl translates one JavaScript expression.
func (s *n8nScope) js2hcl(src string, at *importer.JV) (importer.Expr, bool) {
	v, ok := s.js2value(src, at)
	return v.expr(), ok
}

// plainRef reports whether an expression's value is one {{ }} part that
// is a plain reference ($json.x), and returns it.
func (s *n8nScope) plainRef(raw *importer.JV) (hclValue, bool) {
	if raw == nil || raw.Kind != 's' || !strings.HasPrefix(raw.Str, "=") {
		return hclValue{}, false
	}
	chunks := splitN8N(raw.Str[1:])
	if len(chunks) != 2 || chunks[0].text != "" || !chunks[1].code {
		return hclValue{}, false
	}
	v, ok := s.js2value(chunks[1].text, raw)
	return v, ok && v.ref
}

func (s *n8nScope) js2value(src string, at *importer.JV) (hclValue, bool) {
	prog, err := parser.ParseFile(nil, "", "("+src+"\n)", 0)
	if err != nil || len(prog.Body) != 1 {
		return hclValue{}, false
	}
	st, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return hclValue{}, false
	}
	return s.node2hcl(st.Expression, at)
}

// hclValue is a translated JavaScript value: an expression, or for string
// concatenation the parts of a template.
type hclValue struct {
	e     importer.Expr
	parts []importer.TPart // set for a string: a literal or a concatenation
	ref   bool             // a plain reference
	// item and path are a plain reference's item of another node (or of
	// $input) and the path in its json: the item must exist, the path
	// need not.
	item importer.Expr
	path []any
}

func (v hclValue) expr() importer.Expr {
	if v.parts != nil {
		return importer.Template(v.parts, false)
	}
	return v.e
}

func (v hclValue) asParts() []importer.TPart {
	if v.parts != nil {
		return v.parts
	}
	return []importer.TPart{{Expr: v.e}}
}

func (s *n8nScope) node2hcl(n ast.Expression, at *importer.JV) (hclValue, bool) {
	switch n := n.(type) {
	case *ast.StringLiteral:
		return hclValue{parts: []importer.TPart{{Lit: n.Value.String()}}}, true
	case *ast.NumberLiteral:
		return hclValue{e: importer.Code(fmt.Sprint(n.Value))}, true
	case *ast.BooleanLiteral:
		return hclValue{e: importer.Code(fmt.Sprint(n.Value))}, true
	case *ast.NullLiteral:
		return hclValue{e: importer.Code("null")}, true
	case *ast.UnaryExpression:
		if n.Operator != token.MINUS || n.Postfix {
			return hclValue{}, false
		}
		v, ok := s.node2hcl(n.Operand, at)
		if !ok || v.parts != nil {
			return hclValue{}, false
		}
		return hclValue{e: importer.Join("-", importer.Paren(v.e))}, true
	case *ast.BinaryExpression:
		l, ok1 := s.node2hcl(n.Left, at)
		r, ok2 := s.node2hcl(n.Right, at)
		if !ok1 || !ok2 {
			return hclValue{}, false
		}
		switch n.Operator {
		case token.PLUS:
			// + joins text when either side is text; otherwise it depends on
			// the types, which only goja knows.
			if l.parts == nil && r.parts == nil {
				return hclValue{}, false
			}
			return hclValue{parts: append(append([]importer.TPart{}, l.asParts()...), r.asParts()...)}, true
		case token.MINUS, token.MULTIPLY, token.SLASH, token.REMAINDER:
			if l.parts != nil || r.parts != nil {
				return hclValue{}, false
			}
			return hclValue{e: importer.Join(importer.Paren(l.e), " "+n.Operator.String()+" ", importer.Paren(r.e))}, true
		}
		return hclValue{}, false
	case *ast.DotExpression, *ast.BracketExpression, *ast.CallExpression, *ast.Identifier:
		if e, ok := s.envRef(n); ok {
			return hclValue{e: e}, true
		}
		item, path, ok := s.reference(n, at)
		if !ok {
			return hclValue{}, false
		}
		v := hclValue{e: importer.Index(item, path...), ref: true}
		if item != nil && string(item.Bytes()) != string(s.item.Bytes()) {
			v.item, v.path = item, path
		}
		return v, true
	}
	return hclValue{}, false
}

// reference translates $json.a["b"][0], $input.first().json.x,
// $('Node').item.json.x and $node["Node"].json.x.
// It returns the item's expression and the path in its json.
func (s *n8nScope) reference(n ast.Expression, at *importer.JV) (importer.Expr, []any, bool) {
	var steps []any
	for {
		switch m := n.(type) {
		case *ast.DotExpression:
			steps = append([]any{string(m.Identifier.Name)}, steps...)
			n = m.Left
			continue
		case *ast.BracketExpression:
			switch k := m.Member.(type) {
			case *ast.StringLiteral:
				steps = append([]any{k.Value.String()}, steps...)
			case *ast.NumberLiteral:
				i, ok := k.Value.(int64)
				if !ok {
					return nil, nil, false
				}
				steps = append([]any{int(i)}, steps...)
			default:
				return nil, nil, false
			}
			n = m.Left
			continue
		case *ast.CallExpression:
			// .first(), .last(), .all() of $input or $('Node')
			callee, ok := m.Callee.(*ast.DotExpression)
			name := ""
			if ok {
				name = string(callee.Identifier.Name)
			}
			if ok && len(m.ArgumentList) == 0 && (name == "first" || name == "last" || name == "all") {
				steps = append([]any{name + "()"}, steps...)
				n = callee.Left
				continue
			}
		}
		break
	}
	for _, st := range steps {
		if st == "length" {
			return nil, nil, false // JavaScript's length of text counts UTF-16 units
		}
	}
	rest := func(base importer.Expr, after []any) (importer.Expr, []any, bool) {
		if len(after) == 0 || after[0] != "json" {
			return nil, nil, false
		}
		return base, after[1:], true
	}
	switch root := n.(type) {
	case *ast.Identifier:
		switch root.Name {
		case "$json":
			return s.item, steps, true
		case "$itemIndex":
			if len(steps) == 0 {
				return s.index, nil, true
			}
		case "$input":
			return s.itemsCall(s.input, "$input", steps, at)
		case "$node":
			if len(steps) >= 2 {
				name, ok := steps[0].(string)
				if !ok {
					return nil, nil, false
				}
				// n8n's $node["Node"].json is that node's item at the current
				// item's index (an error when there is none).
				items, ok := s.outputOf(name, at)
				if !ok {
					return nil, nil, false
				}
				return rest(importer.Index(items.e, s.index), steps[1:])
			}
		}
	case *ast.CallExpression:
		// $('Node')
		id, ok := root.Callee.(*ast.Identifier)
		if !ok || id.Name != "$" || len(root.ArgumentList) != 1 {
			return nil, nil, false
		}
		lit, ok := root.ArgumentList[0].(*ast.StringLiteral)
		if !ok {
			return nil, nil, false
		}
		items, ok := s.outputOf(lit.Value.String(), at)
		if !ok {
			return nil, nil, false
		}
		return s.itemsCall(items, lit.Value.String(), steps, at)
	}
	return nil, nil, false
}

// itemsCall translates .item, .first(), .last() and .all()[N] followed by
// .json and a path, on $input or $('Node').
func (s *n8nScope) itemsCall(items n8nItems, name string, steps []any, at *importer.JV) (importer.Expr, []any, bool) {
	if len(steps) < 2 {
		return nil, nil, false
	}
	method, ok := steps[0].(string)
	if !ok {
		return nil, nil, false
	}
	tail := steps[1:]
	var base importer.Expr
	switch method {
	case "item":
		if name == "$input" {
			base = importer.Index(items.e, s.index)
			break
		}
		paired, idx, ok := pairedItem(&s.input, name, s.index)
		if !ok {
			return nil, nil, false // the code step refuses it (pairedIndexes)
		}
		base = importer.Index(paired.e, idx)
	case "first()":
		base = importer.Index(items.e, 0)
	case "last()":
		base = importer.Join(items.e, "[length(", items.e, ") - 1]")
	case "all()":
		i, ok := tail[0].(int)
		if !ok {
			return nil, nil, false
		}
		base, tail = importer.Index(items.e, i), tail[1:]
	default:
		return nil, nil, false
	}
	if len(tail) == 0 || tail[0] != "json" {
		return nil, nil, false
	}
	return base, tail[1:], true
}

// pairedItem is n8n's paired item of the current item (index idx of the
// node's input items) in the node named: the item it descends from,
// following each node's pairs back (n8n's getPairedItem). It returns the
// items of the node's output the current item descends through and the
// index in them; false when the node is no ancestor the flow can follow.
func pairedItem(in *n8nItems, name string, idx importer.Expr) (n8nItems, importer.Expr, bool) {
	items, idx, lost := pairedItemAt(in, name, idx)
	return items, idx, lost == nil && idx != nil
}

// pairedItemAt is pairedItem, and the node whose items lose the pairs
// when it is not followed (nil when the chain of nodes ends first).
func pairedItemAt(in *n8nItems, name string, idx importer.Expr) (n8nItems, importer.Expr, *n8nNode) {
	for cur := in; cur != nil; cur = cur.prev {
		if cur.owner != nil && cur.owner.name == name {
			return *cur, idx, nil
		}
		if cur.unpaired {
			return n8nItems{}, nil, cur.owner
		}
		if cur.pairsAll {
			return pairedThroughAll(cur, name, idx)
		}
		if cur.merged != nil {
			return cur.merged.follow(name, idx)
		}
		if cur.paired != nil {
			idx = importer.Index(cur.paired, idx)
		}
	}
	return n8nItems{}, nil, nil
}

// outputOf are the items of the output of the node named that the
// current node descends from, as n8n picks it for $('Node') and $node
// (the output connected on the way; the first when it has one).
func (s *n8nScope) outputOf(name string, at *importer.JV) (n8nItems, bool) {
	if items, ok := outputOf(&s.input, name); ok {
		return items, true
	}
	items, ok := s.nodeItems(name, at)
	if !ok || len(s.n.byName[name].items) > 1 {
		return n8nItems{}, false
	}
	return items, true
}

// outputOf finds the items of the node named among in and the items
// before it.
func outputOf(in *n8nItems, name string) (n8nItems, bool) {
	for cur := in; cur != nil; cur = cur.prev {
		if cur.owner != nil && cur.owner.name == name {
			return *cur, true
		}
	}
	return n8nItems{}, false
}

// nodeItems are the items of the node named, which must have run before.
func (s *n8nScope) nodeItems(name string, at *importer.JV) (n8nItems, bool) {
	node := s.n.byName[name]
	if node == nil || !node.conv || len(node.items) == 0 {
		return n8nItems{}, false
	}
	return node.items[0], true
}
