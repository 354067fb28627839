package n8n

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// An app node used as a tool (gmailTool, airtableTool, postgresTool…):
// n8n runs the node itself on one item, the model's arguments, and gives
// the model the json of the items of its first output. The arguments are
// what the node's parameters ask with $fromAI(key, description, type,
// default) — n8n builds the tool's schema from those calls
// (createNodeAsTool's getSchema) and $fromAI(key) reads the argument from
// the item ($json.key, or the default). So the tool is a flow of its
// own: an input for each key, and the node's steps converted as the node
// converts, on the one item of the inputs, each $fromAI(key) read as
// $json["key"].

// appToolBases are the core nodes n8n offers as tools that flowctl import
// converts: the tool type is the node's type and "Tool".
var appToolBases = map[string]bool{
	"gmail": true, "airtable": true, "postgres": true, "slack": true, "telegram": true,
	"googleSheets": true, "googleDrive": true, "googleDocs": true, "wordpress": true, "httpRequest": true,
}

// appToolBase is the node type an app tool runs, or "".
func appToolBase(node *n8nNode) string {
	if !strings.HasPrefix(node.fullType, n8nPrefix) || !strings.HasSuffix(node.typ, "Tool") {
		return ""
	}
	base := strings.TrimSuffix(node.typ, "Tool")
	if !appToolBases[base] || n8nNodeTypes[base] == nil {
		return ""
	}
	return base
}

// fromAIArg is one $fromAI call of a tool's parameters.
type fromAIArg struct {
	key, description, typ string
	def                   *string // the default as written, nil without
	at                    *importer.JV
}

// fromAIStart finds a $fromAI call as n8n's extractFromAICalls does.
var fromAIStart = regexp.MustCompile(`(?i)\$fromAI\s*\(\s*`)

// fromAIKey is a valid key (createNodeAsTool's nameValidationRegex).
var fromAIKey = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// fromAIMarker is the comment n8n's editor writes before a $fromAI it
// generated.
const fromAIMarker = "/*n8n-auto-generated-fromAI-override*/"

// fromAICall reads the $fromAI call at the start of s (after the match
// m): its arguments, and the length of the call. It splits and unquotes
// the arguments as n8n's parseArguments does.
func fromAICall(s string, m []int) (args []string, end int, ok bool) {
	depth, quote := 1, byte(0)
	i := m[1]
	for ; i < len(s) && depth > 0; i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		}
	}
	if depth != 0 {
		return nil, 0, false
	}
	inner := s[m[1] : i-1]
	var cur strings.Builder
	quote = 0
	escape := false
	for j := 0; j < len(inner); j++ {
		c := inner[j]
		switch {
		case escape:
			cur.WriteByte(c)
			escape = false
		case c == '\\':
			escape = true
		case c == '"' || c == '\'' || c == '`':
			if quote == 0 {
				quote = c
			} else if c == quote {
				quote = 0
			}
			cur.WriteByte(c)
		case c == ',' && quote == 0:
			args = append(args, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 {
		args = append(args, strings.TrimSpace(cur.String()))
	}
	for k, a := range args {
		if len(a) >= 2 && strings.ContainsRune("\"'`", rune(a[0])) && a[len(a)-1] == a[0] {
			args[k] = a[1 : len(a)-1]
		}
	}
	return args, i, true
}

// fromAIParams rewrites a tool's parameters: each {{ $fromAI(…) }} is
// {{ $json["key"] }}, and the calls are the tool's arguments. A $fromAI
// it cannot read as n8n does, inside a larger expression, or beside
// another expression (which reads the workflow's items, not the model's)
// is an error at its parameter.
func (n *n8n) fromAIParams(node *n8nNode, v *importer.JV, args *[]fromAIArg) (*importer.JV, bool) {
	if v == nil {
		return nil, true
	}
	c := *v
	switch v.Kind {
	case 'o':
		c.Obj = map[string]*importer.JV{}
		for _, k := range v.Keys {
			e, ok := n.fromAIParams(node, v.Obj[k], args)
			if !ok {
				return nil, false
			}
			c.Obj[k] = e
		}
	case 'a':
		c.Arr = nil
		for _, x := range v.Arr {
			e, ok := n.fromAIParams(node, x, args)
			if !ok {
				return nil, false
			}
			c.Arr = append(c.Arr, e)
		}
	case 's':
		s, ok := n.fromAIText(node, v, args)
		if !ok {
			return nil, false
		}
		c.Str = s
	}
	return &c, true
}

func (n *n8n) fromAIText(node *n8nNode, v *importer.JV, args *[]fromAIArg) (string, bool) {
	s := v.Str
	if !strings.HasPrefix(s, "=") && !(plainResolved[node.typ] && fromAIStart.MatchString(s)) {
		if fromAIStart.MatchString(s) {
			n.Problem(node.where, v, "Unsupported parameter",
				"the text holds $fromAI() but is not an expression (it does not start with =): n8n asks the model for the argument and sends the text as it is written.")
			return "", false
		}
		return s, true
	}
	var out strings.Builder
	rest := s
	if !strings.HasPrefix(s, "=") {
		// Its node evaluates the {{ }} parts as an expression's.
		out.WriteString("=")
	}
	for {
		open := strings.Index(rest, "{{")
		if open < 0 {
			out.WriteString(rest)
			return out.String(), true
		}
		end := strings.Index(rest[open:], "}}")
		if end < 0 {
			out.WriteString(rest)
			return out.String(), true
		}
		body := rest[open+2 : open+end]
		out.WriteString(rest[:open])
		inner := strings.TrimSpace(body)
		inner = strings.TrimSpace(strings.TrimPrefix(inner, fromAIMarker))
		m := fromAIStart.FindStringIndex(inner)
		if m == nil || m[0] != 0 {
			n.Problem(node.where, v, "Unsupported expression",
				"the tool runs as a flow of its own on the model's arguments: an expression of its parameters is converted when it is one $fromAI() call; this one reads the workflow's items.")
			return "", false
		}
		callArgs, callEnd, ok := fromAICall(inner, m)
		if !ok || strings.TrimSpace(inner[callEnd:]) != "" || !strings.HasPrefix(inner, "$fromAI") {
			n.Problem(node.where, v, "Unsupported expression",
				"the tool runs as a flow of its own on the model's arguments: an expression of its parameters is converted when it is one $fromAI() call, not inside a larger expression.")
			return "", false
		}
		a := fromAIArg{typ: "string", at: v}
		if len(callArgs) > 0 {
			a.key = callArgs[0]
		}
		if len(callArgs) > 1 {
			a.description = callArgs[1]
		}
		if len(callArgs) > 2 {
			a.typ = strings.ToLower(callArgs[2])
		}
		if len(callArgs) > 3 {
			d := callArgs[3]
			a.def = &d
		}
		if !fromAIKey.MatchString(a.key) {
			n.Problem(node.where, v, "Invalid parameter", fmt.Sprintf("$fromAI's key %q is not 1 to 64 letters, digits, _ or -; n8n refuses the tool too.", a.key))
			return "", false
		}
		if fromAITypes[a.typ] == "" {
			n.Problem(node.where, v, "Invalid parameter", fmt.Sprintf("$fromAI's type %q is none of string, number, boolean, json; n8n refuses the tool too.", a.typ))
			return "", false
		}
		for _, b := range *args {
			if b.key == a.key && (b.description != a.description || b.typ != a.typ) {
				n.Problem(node.where, v, "Invalid parameter", fmt.Sprintf("$fromAI's key %q is used with different descriptions or types; n8n refuses the tool too.", a.key))
				return "", false
			}
		}
		*args = append(*args, a)
		key, _ := json.Marshal(a.key)
		out.WriteString("{{ $json[" + string(key) + "] }}")
		rest = rest[open+end+2:]
	}
}

// plainResolved are the tools whose node evaluates the {{ }} parts of a
// text that is not an expression (Postgres's query and query parameters).
var plainResolved = map[string]bool{"postgresTool": true}

// fromAIRef is a $fromAI() rewritten by fromAIParams.
var fromAIRef = regexp.MustCompile(`\{\{ \$json\[("(?:[^"\\]|\\.)*")\] \}\}`)

// jsonKey reads a key fromAIParams wrote as JSON.
func jsonKey(s string) string {
	var k string
	_ = json.Unmarshal([]byte(s), &k)
	return k
}

// fromAITypes are the inputs' types of $fromAI's types.
var fromAITypes = map[string]string{"string": "string", "number": "number", "boolean": "bool", "json": "any"}

// fromAIDefault is a default as n8n's parseDefaultValue reads it, in HCL.
func fromAIDefault(def, typ string) (cty.Value, bool) {
	switch typ {
	case "string":
		return cty.StringVal(def), true
	case "boolean":
		if l := strings.ToLower(def); l == "true" || l == "false" {
			return cty.BoolVal(l == "true"), true
		}
	case "number":
		if v, err := cty.ParseNumberVal(strings.TrimSpace(def)); err == nil && strings.TrimSpace(def) != "" {
			return v, true
		}
	}
	return cty.NilVal, false
}

// appTool converts an app node used as a tool into a flow of its own.
func (n *n8n) appTool(root, node *n8nNode) (importer.Expr, bool) {
	base := appToolBase(node)
	var args []fromAIArg
	params, ok := n.fromAIParams(node, node.params, &args)
	if !ok {
		return nil, false
	}
	if msg := n.settings(node); msg != "" {
		return nil, false
	}
	desc := ""
	if td := params.Text("toolDescription"); params.Text("descriptionType") != "auto" && strings.TrimSpace(td) != "" {
		if strings.HasPrefix(td, "=") {
			n.Problem(node.where, params.Get("toolDescription"), "Unsupported expression", "the tool's description is converted when it is written out.")
			return nil, false
		}
		desc = td
	} else {
		n.Warn(node.where, node.j.Get("type"), "Tool description not converted",
			"n8n describes the tool from its node type's operation (its action's name); the tool's flow has no description: write one where the model needs it.")
	}
	name := toolName(node)
	return n.toolFlow(root, node, name, desc, func() bool {
		var item []importer.Member
		if !n.fromAIInputs(node, args, func(key, input string) {
			item = append(item, importer.Member{Name: key, Value: importer.Ref("input", input)})
		}) {
			return false
		}
		run := *node
		run.typ, run.fullType, run.params = base, n8nPrefix+base, params
		run.ins, run.outs = nil, nil
		run.step = n.Name("step", node.name, "node")
		errs := n.errorCount()
		items := n8nNodeTypes[base](n, &run, n8nItems{e: importer.Tuple([]importer.Expr{importer.Object(item)})})
		if items == nil || n.errorCount() > errs {
			return false
		}
		ob := hclwrite.NewBlock("output", []string{"response"})
		ob.Body().SetAttributeRaw("value", importer.Clone(items[0].e))
		ob.Body().SetAttributeValue("description", cty.StringVal("The items of the node's first output, which n8n gives the model"))
		n.File.Outputs = append(n.File.Outputs, importer.Decl{Block: ob})
		return true
	})
}
