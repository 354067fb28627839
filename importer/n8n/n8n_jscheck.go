package n8n

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dop251/goja/parser"
	"github.com/flowctl/flowctl/importer"
)

// JavaScript that does not parse. n8n fails a node whose code or
// expression does not parse when the node runs ("invalid syntax"); goja,
// which runs them in the flow, would fail the step the same way. Import
// says so at once, at the parameter, with goja's reason and the line and
// column in the code.

// jsWrap is how the n8n_code block compiles a piece of JavaScript
// (n8n_code.js): the source goes between prefix and suffix, on the
// prefix's line.
type jsWrap struct{ prefix, suffix string }

var (
	// codeWrap is run's AsyncFunction: a Code node's body.
	codeWrap = jsWrap{"(async function () {", "\n})"}
	// sortWrap is the Sort node's code, in sort's comparison function.
	sortWrap = jsWrap{"(async function () { return items.sort((a, b) => { ", " }) })"}
	// exprWrap is evaluate's Function for one {{ }} part.
	exprWrap = jsWrap{"(function () { return (", "\n) })"}
)

// jsSyntaxError is the reason goja cannot parse src as w compiles it,
// with the line and column in src, or "" when it parses.
func jsSyntaxError(src string, w jsWrap) string {
	_, err := parser.ParseFile(nil, "", w.prefix+src+w.suffix, 0)
	if err == nil {
		return ""
	}
	var list parser.ErrorList
	var one *parser.Error
	msg, line, col := err.Error(), 0, 0
	if errors.As(err, &list) && len(list) > 0 {
		one = list[0]
	} else {
		var e parser.Error
		if errors.As(err, &e) {
			one = &e
		}
	}
	if one != nil {
		msg, line, col = one.Message, one.Position.Line, one.Position.Column
		if line == 1 {
			col -= len(w.prefix)
		}
		lines := strings.Split(src, "\n")
		if line > len(lines) || (line == len(lines) && col > len(lines[line-1])) {
			// In what follows src: src ends before it is complete.
			msg, line, col = "the code ends before it is complete", len(lines), len(lines[len(lines)-1])+1
		}
		if col < 1 {
			col = 1
		}
	}
	if line == 0 {
		return msg
	}
	return fmt.Sprintf("%s (line %d, column %d)", msg, line, col)
}

// checkCode reports code that goja cannot parse as a problem at v and
// returns false.
func (n *n8n) checkCode(node *n8nNode, v *importer.JV, src string, w jsWrap) bool {
	why := jsSyntaxError(src, w)
	if why == "" {
		return true
	}
	n.Problem(node.where, v, "Invalid JavaScript",
		fmt.Sprintf("the code does not parse: %s. n8n fails the node on it when it runs, and so would the flow.", why))
	return false
}

// checkExpression reports an expression ("=… {{ code }} …") one of whose
// parts goja cannot parse, as a problem at v, and returns false.
func (n *n8n) checkExpression(node *n8nNode, v *importer.JV) bool {
	if v == nil || v.Kind != 's' || !strings.HasPrefix(v.Str, "=") {
		return true
	}
	for _, c := range splitN8N(v.Str[1:]) {
		if !c.code {
			continue
		}
		src := c.text
		if strings.HasPrefix(strings.TrimSpace(src), "{") {
			src = "(" + src + ")"
		}
		if why := jsSyntaxError(src, exprWrap); why != "" {
			n.Problem(node.where, v, "Invalid expression",
				fmt.Sprintf("{{%s}} does not parse as JavaScript: %s. n8n fails the node on it (invalid syntax), and so would the flow.", c.text, why))
			return false
		}
	}
	return true
}

// checkExpressions checks every expression among a node's parameters.
func (n *n8n) checkExpressions(node *n8nNode, v *importer.JV) bool {
	if v == nil {
		return true
	}
	switch v.Kind {
	case 's':
		return n.checkExpression(node, v)
	case 'o':
		for _, k := range v.Keys {
			if !n.checkExpressions(node, v.Obj[k]) {
				return false
			}
		}
	case 'a':
		for _, e := range v.Arr {
			if !n.checkExpressions(node, e) {
				return false
			}
		}
	}
	return true
}
