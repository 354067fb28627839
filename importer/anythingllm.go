package importer

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// AnythingLLM agent flows ({name, description, active, steps: [{type,
// config}]}), as AnythingLLM's flow executor runs them
// (server/utils/agentFlows): the start step's variables are the flow's
// inputs; each later step sees the variables set before it, through
// ${var} and ${var.path[0].to} in any string of its config; a step's
// resultVariable or responseVariable names its result; a step with
// directOutput ends the flow with its result.

// allmVar is a variable as the steps after the one that set it see it.
type allmVar struct {
	value   expr // input.x, step.x.text, local.x
	dynamic bool // its shape is known only at run time (an API's answer)
}

type allm struct {
	*conv
	vars     map[string]*allmVar
	outVars  []string           // variables set by steps, in order of first setting
	outValue map[string]allmVar // the last value of each
	warned   map[string]bool
}

func convertAnythingLLM(c *conv) {
	root := c.src.Root
	c.file.name = c.name("flow", root.str("name"), "imported_flow")
	c.file.description = root.str("description")
	c.file.header = []string{fmt.Sprintf("Imported by flowctl import from the AnythingLLM agent flow %q (%s).", root.str("name"), filepath.Base(c.src.Name))}
	if !root.boolean(true, "active") {
		f := false
		c.file.expose = &f
		c.file.header = append(c.file.header, "The flow was not active in AnythingLLM: it is not offered as a tool (expose = false).")
	}
	a := &allm{conv: c, vars: map[string]*allmVar{}, outValue: map[string]allmVar{}, warned: map[string]bool{}}
	steps := root.items("steps")
	if root.get("steps") == nil || root.get("steps").Kind != 'a' {
		c.stop(where{what: "flow"}, root, "No steps", "an AnythingLLM agent flow holds a steps array.")
		return
	}
	var direct *decl
	starts := 0
	for i, s := range steps {
		if s.str("type") == "start" {
			if starts == 0 {
				a.start(s)
			} else {
				c.warn(a.where(i, s), s, "Second start step", "AnythingLLM sets the flow's variables from the first start step; this one only gives a value to variables without one, which flowctl import leaves out.")
			}
			starts++
		}
	}
	for i, s := range steps {
		w := a.where(i, s)
		cfg := s.get("config")
		if cfg == nil || cfg.Kind != 'o' {
			cfg = &jv{Kind: 'o', Obj: map[string]*jv{}, Ptr: s.Ptr + "/config", Rng: s.Rng}
		}
		var v *allmVar
		var stepName string
		switch t := s.str("type"); t {
		case "start":
			continue
		case "apiCall":
			stepName, v = a.apiCall(i, cfg, w)
		case "llmInstruction":
			stepName, v = a.llmInstruction(i, cfg, w)
		case "webScraping":
			stepName, v = a.webScraping(i, cfg, w)
		default:
			msg := c.problem(w, s.get("type"), "Unsupported step type",
				fmt.Sprintf("AnythingLLM's flow executor runs start, apiCall, llmInstruction and webScraping steps (it fails on any other: \"Unknown flow type: %s\"), and flowctl import converts those.", t))
			stepName = c.name("step", a.varName(cfg), snake(t))
			c.gapStep(stepName, fmt.Sprintf("AnythingLLM step %d (%s)", i, t), msg)
			v = &allmVar{value: ref("step", stepName, "value"), dynamic: true}
		}
		if name := a.varName(cfg); name != "" {
			if _, ok := a.outValue[name]; !ok {
				a.outVars = append(a.outVars, name)
			}
			a.vars[name] = v
			a.outValue[name] = *v
		}
		if cfg.boolean(false, "directOutput") {
			direct = &decl{block: hclwrite.NewBlock("output", []string{"result"})}
			direct.block.Body().SetAttributeRaw("value", clone(v.value))
			direct.block.Body().SetAttributeValue("description", cty.StringVal("The flow's result: step "+stepName+" has directOutput"))
			if i+1 < len(steps) {
				c.warn(w, cfg.get("directOutput"), "Steps after a direct output",
					fmt.Sprintf("AnythingLLM ends the flow with this step's result and never runs the %s after it; flowctl import leaves %s out.",
						plural(len(steps)-i-1, "step", "steps"), map[bool]string{true: "it", false: "them"}[len(steps)-i-1 == 1]))
			}
			break
		}
	}
	for _, name := range a.outVars {
		out := hclwrite.NewBlock("output", []string{c.name("output", name, "value")})
		out.Body().SetAttributeRaw("value", clone(a.outValue[name].value))
		out.Body().SetAttributeValue("description", cty.StringVal("AnythingLLM variable "+name))
		a.file.outputs = append(a.file.outputs, decl{block: out})
	}
	if direct != nil {
		direct.block.SetLabels([]string{c.name("output", "result", "result")})
		a.file.outputs = append(a.file.outputs, *direct)
	}
}

func (a *allm) where(i int, s *jv) where {
	return where{at: s, what: "step", name: a.varName(s.get("config")), typ: s.str("type")}
}

// varName is the variable a step's result is stored in.
func (a *allm) varName(cfg *jv) string {
	if cfg == nil {
		return ""
	}
	if v := cfg.str("resultVariable"); v != "" {
		return v
	}
	return cfg.str("responseVariable")
}

// start turns the variables of the start step into inputs: strings with
// their value as default. A variable that holds a credential becomes a
// secret instead, so that its value is not written.
func (a *allm) start(s *jv) {
	for _, v := range s.items("config", "variables") {
		name := v.str("name")
		if name == "" {
			continue
		}
		value := v.str("value")
		if looksLikeCredential(value) || (value != "" && credentialName.MatchString(name)) {
			sec := a.addSecret(name, fmt.Sprintf("AnythingLLM flow variable %s (its value was in the flow file)", name), value)
			a.vars[name] = &allmVar{value: ref("secret", sec)}
			a.warn(where{at: v, what: "variable", name: name}, v.get("value"), "Credential made a secret",
				fmt.Sprintf("the variable holds a credential: flowctl import declares secret %q instead of an input, and does not write its value.", sec))
			continue
		}
		in := a.name("input", name, "input")
		b := hclwrite.NewBlock("input", []string{in})
		b.Body().SetAttributeRaw("type", clone(code("string")))
		b.Body().SetAttributeRaw("default", clone(str(value)))
		desc := v.str("description")
		if desc == "" {
			desc = "AnythingLLM flow variable " + name
		}
		b.Body().SetAttributeRaw("description", clone(str(desc)))
		a.file.inputs = append(a.file.inputs, decl{block: b})
		a.vars[name] = &allmVar{value: ref("input", in)}
	}
}

// apiCall is an http step (executors/api-call.js): the headers, a body
// for POST, PUT and PATCH (json parsed and sent as JSON, form
// URL-encoded, text as it is); a status of 400 or more fails it. Its
// result is the answer parsed as JSON when it is JSON, else the text: a
// local of the step's text.
func (a *allm) apiCall(i int, cfg *jv, w where) (string, *allmVar) {
	name := a.name("step", a.varName(cfg), "api_call")
	b, body := newStep(name, "http")
	given := cfg.str("method")
	method := strings.ToUpper(given)
	if method == "" {
		method = "GET"
	}
	if method != "GET" {
		body.SetAttributeValue("method", cty.StringVal(method))
	}
	body.SetAttributeRaw("url", clone(a.text(cfg.str("url"), w, cfg.get("url"))))
	var headers []member
	for _, h := range cfg.items("headers") {
		key, value := h.str("key"), h.str("value")
		if strings.TrimSpace(key) == "" {
			continue
		}
		headers = append(headers, member{Name: key, Value: a.headerValue(key, value, name, w, h)})
	}
	// AnythingLLM sends a body when the method is written POST, PUT or
	// PATCH (in capitals: "post" sends none, though fetch sends a POST).
	hasBody := given == "POST" || given == "PUT" || given == "PATCH"
	if hasBody {
		switch bt := cfg.str("bodyType"); bt {
		case "form":
			var fields []member
			for _, f := range cfg.items("formData") {
				if k := f.str("key"); k != "" {
					v := a.secretValue(k, f.get("value"), "form field of step "+name+":")
					if v == nil {
						v = a.text(f.str("value"), w, f.get("value"))
					}
					fields = append(fields, member{Name: k, Value: v})
				}
			}
			body.SetAttributeValue("body_type", cty.StringVal("form"))
			body.SetAttributeRaw("body", clone(object(fields)))
		case "json":
			e, err := a.jsonBody(cfg.str("body"), w, cfg.get("body"))
			if err != nil {
				if strings.TrimSpace(cfg.str("body")) != "" {
					a.warn(w, cfg.get("body"), "Body is not JSON",
						fmt.Sprintf("the body is not JSON (%v) once its variables are in: AnythingLLM sends no body then, only the Content-Type header, and so does the flow.", err))
				}
				headers = append(headers, member{Name: "Content-Type", Value: str("application/json")})
			} else {
				body.SetAttributeRaw("body", clone(e))
			}
		default:
			if cfg.get("body") != nil && cfg.get("body").Kind == 's' {
				body.SetAttributeValue("body_type", cty.StringVal("text"))
				body.SetAttributeRaw("body", clone(a.text(cfg.str("body"), w, cfg.get("body"))))
			}
		}
	} else if strings.TrimSpace(cfg.str("body")) != "" {
		a.warn(w, cfg.get("body"), "Body not sent", fmt.Sprintf("AnythingLLM sends a body only when the method is POST, PUT or PATCH, not %q; neither does the flow.", given))
	}
	if len(headers) > 0 {
		body.SetAttributeRaw("headers", clone(object(headers)))
	}
	a.step(fmt.Sprintf("AnythingLLM step %d: apiCall %s %s", i, method, cfg.str("url")), b)
	answer := ref("step", name, "text")
	l := a.name("local", a.varName(cfg), name)
	a.file.locals = append(a.file.locals, local{
		comment: fmt.Sprintf("The answer of step %s: parsed when it is JSON, else its text (AnythingLLM's apiCall result).", name),
		name:    l,
		value:   call("try", call("jsondecode", answer), answer),
	})
	return name, &allmVar{value: ref("local", l), dynamic: true}
}

// headerValue is a header's value; a literal credential becomes a secret
// (the authorization scheme, such as "Bearer ", stays in the flow).
func (a *allm) headerValue(key, value, stepName string, w where, at *jv) expr {
	literal := allmPlaceholder.ReplaceAllString(value, "")
	if !isCredentialHeader(key, literal) || literal != value || value == "" {
		return a.text(value, w, at.get("value"))
	}
	scheme, token := splitScheme(value)
	sec := a.addSecret(key, fmt.Sprintf("header %s of step %s", key, stepName), value)
	if token != value {
		return template([]tpart{{Lit: scheme}, {Expr: ref("secret", sec)}}, false)
	}
	return ref("secret", sec)
}

// llmInstruction is an llm step whose prompt is the instruction, sent
// as one user message (executors/llm-instruction.js); its result is the
// reply's text.
func (a *allm) llmInstruction(i int, cfg *jv, w where) (string, *allmVar) {
	name := a.name("step", a.varName(cfg), "llm_instruction")
	b, body := newStep(name, "llm")
	instr := cfg.get("instruction")
	prompt := ""
	switch {
	case instr == nil:
	case instr.Kind == 's':
		prompt = instr.Str
	default:
		prompt = string(a.src.Bytes[instr.Rng.Start.Byte:instr.Rng.End.Byte])
	}
	body.SetAttributeRaw("prompt", clone(a.text(prompt, w, instr)))
	a.step(fmt.Sprintf("AnythingLLM step %d: llmInstruction", i), b)
	return name, &allmVar{value: ref("step", name, "text")}
}

// webScraping is a scrape step (executors/web-scraping.js): captureAs
// text gives the page's text, html its HTML, querySelector the HTML
// inside the elements the selector matches.
func (a *allm) webScraping(i int, cfg *jv, w where) (string, *allmVar) {
	name := a.name("step", a.varName(cfg), "web_scraping")
	b, body := newStep(name, "scrape")
	body.SetAttributeRaw("url", clone(a.text(cfg.str("url"), w, cfg.get("url"))))
	out := "text"
	switch capture := cfg.str("captureAs"); capture {
	case "", "text":
	case "html":
		out = "html"
	case "querySelector":
		out = "html"
		if sel := cfg.str("querySelector"); sel != "" {
			body.SetAttributeRaw("selector", clone(a.text(sel, w, cfg.get("querySelector"))))
		}
	default:
		a.warn(w, cfg.get("captureAs"), "Unknown captureAs", fmt.Sprintf("captureAs %q is none of text, html, querySelector: the step takes the page's text.", capture))
	}
	if cfg.boolean(true, "enableSummarization") {
		a.warn(w, cfg.get("enableSummarization"), "Content kept whole",
			"AnythingLLM summarises a page whose tokens exceed the context window of the agent's model (enableSummarization, on unless set to false); the flow keeps the page's content whole, as AnythingLLM does for pages that fit.")
	}
	a.step(fmt.Sprintf("AnythingLLM step %d: webScraping %s", i, cfg.str("url")), b)
	return name, &allmVar{value: ref("step", name, out)}
}

// allmPlaceholder is AnythingLLM's variable syntax (replaceVariables).
var allmPlaceholder = regexp.MustCompile(`\$\{([^}]+)\}`)

// text is a string of a step's config with its variables substituted.
func (a *allm) text(s string, w where, at *jv) expr {
	var parts []tpart
	last := 0
	for _, m := range allmPlaceholder.FindAllStringSubmatchIndex(s, -1) {
		parts = append(parts, tpart{Lit: s[last:m[0]]})
		if e, ok := a.interpolate(s[m[2]:m[3]], w, at); ok {
			parts = append(parts, tpart{Expr: e})
		} else {
			parts = append(parts, tpart{Lit: s[m[0]:m[1]]})
		}
		last = m[1]
	}
	parts = append(parts, tpart{Lit: s[last:]})
	what := "step " + w.name
	if w.name == "" {
		what = "step " + w.typ
	}
	return template(a.hideCredentials(parts, what), false)
}

// interpolate is the text a ${path} becomes: the value of the variable
// (or of the path into it) as text, an object as its JSON.
func (a *allm) interpolate(path string, w where, at *jv) (expr, bool) {
	e, dynamic, ok := a.resolve(path, w, at)
	if !ok {
		return nil, false
	}
	if !dynamic {
		return e, true
	}
	return call("try", call("tostring", e), call("jsonencode", e)), true
}

// resolve finds the value ${path} stands for, as AnythingLLM's
// getValueFromPath reads the path: dots outside brackets separate keys,
// [N] indexes an array, ["key"] names a key.
func (a *allm) resolve(path string, w where, at *jv) (expr, bool, bool) {
	parts := allmPath(path)
	if len(parts) == 0 {
		return nil, false, false
	}
	root := strings.Trim(strings.TrimSuffix(strings.TrimPrefix(parts[0], "["), "]"), `'"`)
	v := a.vars[root]
	if v == nil {
		if !a.warned[path] {
			a.warned[path] = true
			a.warn(w, at, "Undefined variable", fmt.Sprintf("no variable and no earlier step defines %q: AnythingLLM leaves ${%s} in the text as it is, and so does the flow.", root, path))
		}
		return nil, false, false
	}
	if len(parts) == 1 {
		return v.value, v.dynamic, true
	}
	if !v.dynamic {
		if !a.warned[path] {
			a.warned[path] = true
			a.warn(w, at, "Path into text", fmt.Sprintf("%q holds text, which has no fields: AnythingLLM leaves ${%s} in the text as it is, and so does the flow.", root, path))
		}
		return nil, false, false
	}
	var steps []any
	for _, p := range parts[1:] {
		if strings.HasPrefix(p, "[") && strings.HasSuffix(p, "]") {
			key := strings.Trim(p[1:len(p)-1], `'"`)
			if n, err := strconv.ParseFloat(strings.TrimSpace(key), 64); err == nil && strings.TrimSpace(key) != "" {
				steps = append(steps, int(n))
				continue
			}
			steps = append(steps, key)
			continue
		}
		steps = append(steps, p)
	}
	return index(v.value, steps...), true, true
}

// allmPath splits a variable path into its parts: "a.b[0]" is a, b, [0].
func allmPath(path string) []string {
	var parts []string
	var cur strings.Builder
	in := false
	for _, r := range path {
		switch {
		case r == '[':
			in = true
			if cur.Len() > 0 {
				parts = append(parts, cur.String())
				cur.Reset()
			}
			cur.WriteRune(r)
		case r == ']':
			in = false
			cur.WriteRune(r)
			parts = append(parts, cur.String())
			cur.Reset()
		case r == '.' && !in:
			if cur.Len() > 0 {
				parts = append(parts, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		parts = append(parts, cur.String())
	}
	return parts
}

// jsonBody reads a JSON body with variables: AnythingLLM substitutes them
// in the text and parses the result. A variable inside a JSON string is
// its text there; a variable standing for a whole value is the value its
// text parses to.
func (a *allm) jsonBody(s string, w where, at *jv) (expr, error) {
	ms := allmPlaceholder.FindAllStringSubmatchIndex(s, -1)
	var spans []span
	var exprs []expr
	var dyn []bool
	for _, m := range ms {
		e, dynamic, ok := a.resolve(s[m[2]:m[3]], w, at)
		if !ok {
			continue // stays literal text
		}
		spans = append(spans, span{m[0], m[1]})
		exprs = append(exprs, e)
		dyn = append(dyn, dynamic)
	}
	asText := func(i int) expr {
		if !dyn[i] {
			return exprs[i]
		}
		return call("try", call("tostring", exprs[i]), call("jsonencode", exprs[i]))
	}
	return jsonTemplate(s, spans, asText, func(i int) expr { return call("jsondecode", asText(i)) })
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
