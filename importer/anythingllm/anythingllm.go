package anythingllm

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/importer"
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
	value   importer.Expr // input.x, step.x.text, local.x
	dynamic bool          // its shape is known only at run time (an API's answer)
}

type allm struct {
	*importer.Conv
	vars     map[string]*allmVar
	outVars  []string           // variables set by steps, in order of first setting
	outValue map[string]allmVar // the last value of each
	warned   map[string]bool
}

func convertAnythingLLM(c *importer.Conv) {
	root := c.Src.Root
	c.File.Name = c.FlowName(root.Text("name"), "imported_flow")
	c.File.Description = root.Text("description")
	c.File.Header = []string{fmt.Sprintf("Imported by flowctl import from the AnythingLLM agent flow %q (%s).", root.Text("name"), filepath.Base(c.Src.Name))}
	if !root.Boolean(true, "active") {
		f := false
		c.File.Expose = &f
		c.File.Header = append(c.File.Header, "The flow was not active in AnythingLLM: it is not offered as a tool (expose = false).")
	}
	a := &allm{Conv: c, vars: map[string]*allmVar{}, outValue: map[string]allmVar{}, warned: map[string]bool{}}
	steps := root.Items("steps")
	if root.Get("steps") == nil || root.Get("steps").Kind != 'a' {
		c.Stop(importer.Where{What: "flow"}, root, "No steps", "an AnythingLLM agent flow holds a steps array.")
		return
	}
	var direct *importer.Decl
	starts := 0
	for i, s := range steps {
		if s.Text("type") == "start" {
			if starts == 0 {
				a.start(s)
			} else {
				c.Warn(a.where(i, s), s, "Second start step", "AnythingLLM sets the flow's variables from the first start step; this one only gives a value to variables without one, which flowctl import leaves out.")
			}
			starts++
		}
	}
	for i, s := range steps {
		w := a.where(i, s)
		cfg := s.Get("config")
		if cfg == nil || cfg.Kind != 'o' {
			cfg = &importer.JV{Kind: 'o', Obj: map[string]*importer.JV{}, Ptr: s.Ptr + "/config", Rng: s.Rng}
		}
		var v *allmVar
		var stepName string
		switch t := s.Text("type"); t {
		case "start":
			continue
		case "apiCall":
			stepName, v = a.apiCall(i, cfg, w)
		case "llmInstruction":
			stepName, v = a.llmInstruction(i, cfg, w)
		case "webScraping":
			stepName, v = a.webScraping(i, cfg, w)
		default:
			msg := c.Problem(w, s.Get("type"), "Unsupported step type",
				fmt.Sprintf("AnythingLLM's flow executor runs start, apiCall, llmInstruction and webScraping steps (it fails on any other: \"Unknown flow type: %s\"), and flowctl import converts those.", t))
			stepName = c.Name("step", a.varName(cfg), importer.Snake(t))
			c.GapStep(stepName, fmt.Sprintf("AnythingLLM step %d (%s)", i, t), msg, nil)
			v = &allmVar{value: importer.Ref("step", stepName, "value"), dynamic: true}
		}
		if name := a.varName(cfg); name != "" {
			if _, ok := a.outValue[name]; !ok {
				a.outVars = append(a.outVars, name)
			}
			a.vars[name] = v
			a.outValue[name] = *v
		}
		if cfg.Boolean(false, "directOutput") {
			direct = &importer.Decl{Block: hclwrite.NewBlock("output", []string{"result"})}
			direct.Block.Body().SetAttributeRaw("value", importer.Clone(v.value))
			direct.Block.Body().SetAttributeValue("description", cty.StringVal("The flow's result: step "+stepName+" has directOutput"))
			if i+1 < len(steps) {
				c.Warn(w, cfg.Get("directOutput"), "Steps after a direct output",
					fmt.Sprintf("AnythingLLM ends the flow with this step's result and never runs the %s after it; flowctl import leaves %s out.",
						plural(len(steps)-i-1, "step", "steps"), map[bool]string{true: "it", false: "them"}[len(steps)-i-1 == 1]))
			}
			break
		}
	}
	for _, name := range a.outVars {
		out := hclwrite.NewBlock("output", []string{c.Name("output", name, "value")})
		out.Body().SetAttributeRaw("value", importer.Clone(a.outValue[name].value))
		out.Body().SetAttributeValue("description", cty.StringVal("AnythingLLM variable "+name))
		a.File.Outputs = append(a.File.Outputs, importer.Decl{Block: out})
	}
	if direct != nil {
		direct.Block.SetLabels([]string{c.Name("output", "result", "result")})
		a.File.Outputs = append(a.File.Outputs, *direct)
	}
}

func (a *allm) where(i int, s *importer.JV) importer.Where {
	return importer.Where{At: s, What: "step", Name: a.varName(s.Get("config")), Typ: s.Text("type")}
}

// varName is the variable a step's result is stored in.
func (a *allm) varName(cfg *importer.JV) string {
	if cfg == nil {
		return ""
	}
	if v := cfg.Text("resultVariable"); v != "" {
		return v
	}
	return cfg.Text("responseVariable")
}

// start turns the variables of the start step into inputs: strings with
// their value as default. A variable that holds a credential becomes a
// secret instead, so that its value is not written.
func (a *allm) start(s *importer.JV) {
	for _, v := range s.Items("config", "variables") {
		name := v.Text("name")
		if name == "" {
			continue
		}
		value := v.Text("value")
		if importer.LooksLikeCredential(value) || (value != "" && importer.CredentialName.MatchString(name)) {
			sec := a.AddSecret(name, fmt.Sprintf("AnythingLLM flow variable %s (its value was in the flow file)", name), value)
			a.vars[name] = &allmVar{value: importer.Ref("secret", sec)}
			a.Warn(importer.Where{At: v, What: "variable", Name: name}, v.Get("value"), "Credential made a secret",
				fmt.Sprintf("the variable holds a credential: flowctl import declares secret %q instead of an input, and does not write its value.", sec))
			continue
		}
		in := a.Name("input", name, "input")
		b := hclwrite.NewBlock("input", []string{in})
		b.Body().SetAttributeRaw("type", importer.Clone(importer.Code("string")))
		b.Body().SetAttributeRaw("default", importer.Clone(importer.Str(value)))
		desc := v.Text("description")
		if desc == "" {
			desc = "AnythingLLM flow variable " + name
		}
		b.Body().SetAttributeRaw("description", importer.Clone(importer.Str(desc)))
		a.File.Inputs = append(a.File.Inputs, importer.Decl{Block: b})
		a.vars[name] = &allmVar{value: importer.Ref("input", in)}
	}
}

// apiCall is an http step (executors/api-call.js): the headers, a body
// for POST, PUT and PATCH (json parsed and sent as JSON, form
// URL-encoded, text as it is); a status of 400 or more fails it. Its
// result is the answer parsed as JSON when it is JSON, else the text: a
// local of the step's text.
func (a *allm) apiCall(i int, cfg *importer.JV, w importer.Where) (string, *allmVar) {
	name := a.Name("step", a.varName(cfg), "api_call")
	b, body := importer.NewStep(name, "http")
	given := cfg.Text("method")
	method := strings.ToUpper(given)
	if method == "" {
		method = "GET"
	}
	if method != "GET" {
		body.SetAttributeValue("method", cty.StringVal(method))
	}
	body.SetAttributeRaw("url", importer.Clone(a.text(cfg.Text("url"), w, cfg.Get("url"))))
	var headers []importer.Member
	for _, h := range cfg.Items("headers") {
		key, value := h.Text("key"), h.Text("value")
		if strings.TrimSpace(key) == "" {
			continue
		}
		headers = append(headers, importer.Member{Name: key, Value: a.headerValue(key, value, name, w, h)})
	}
	// AnythingLLM sends a body when the method is written POST, PUT or
	// PATCH (in capitals: "post" sends none, though fetch sends a POST).
	hasBody := given == "POST" || given == "PUT" || given == "PATCH"
	if hasBody {
		switch bt := cfg.Text("bodyType"); bt {
		case "form":
			var fields []importer.Member
			for _, f := range cfg.Items("formData") {
				if k := f.Text("key"); k != "" {
					v := a.SecretValue(k, f.Get("value"), "form field of step "+name+":")
					if v == nil {
						v = a.text(f.Text("value"), w, f.Get("value"))
					}
					fields = append(fields, importer.Member{Name: k, Value: v})
				}
			}
			body.SetAttributeValue("body_type", cty.StringVal("form"))
			body.SetAttributeRaw("body", importer.Clone(importer.Object(fields)))
		case "json":
			e, err := a.jsonBody(cfg.Text("body"), w, cfg.Get("body"))
			if err != nil {
				if strings.TrimSpace(cfg.Text("body")) != "" {
					a.Warn(w, cfg.Get("body"), "Body is not JSON",
						fmt.Sprintf("the body is not JSON (%v) once its variables are in: AnythingLLM sends no body then, only the Content-Type header, and so does the flow.", err))
				}
				headers = append(headers, importer.Member{Name: "Content-Type", Value: importer.Str("application/json")})
			} else {
				body.SetAttributeRaw("body", importer.Clone(e))
			}
		default:
			if cfg.Get("body") != nil && cfg.Get("body").Kind == 's' {
				body.SetAttributeValue("body_type", cty.StringVal("text"))
				body.SetAttributeRaw("body", importer.Clone(a.text(cfg.Text("body"), w, cfg.Get("body"))))
			}
		}
	} else if strings.TrimSpace(cfg.Text("body")) != "" {
		a.Warn(w, cfg.Get("body"), "Body not sent", fmt.Sprintf("AnythingLLM sends a body only when the method is POST, PUT or PATCH, not %q; neither does the flow.", given))
	}
	if len(headers) > 0 {
		body.SetAttributeRaw("headers", importer.Clone(importer.Object(headers)))
	}
	a.Step(fmt.Sprintf("AnythingLLM step %d: apiCall %s %s", i, method, cfg.Text("url")), b)
	answer := importer.Ref("step", name, "text")
	l := a.Name("local", a.varName(cfg), name)
	a.File.Locals = append(a.File.Locals, importer.Local{
		Comment: fmt.Sprintf("The answer of step %s: parsed when it is JSON, else its text (AnythingLLM's apiCall result).", name),
		Name:    l,
		Value:   importer.Call("try", importer.Call("jsondecode", answer), answer),
	})
	return name, &allmVar{value: importer.Ref("local", l), dynamic: true}
}

// headerValue is a header's value; a literal credential becomes a secret
// (the authorization scheme, such as "Bearer ", stays in the flow).
func (a *allm) headerValue(key, value, stepName string, w importer.Where, at *importer.JV) importer.Expr {
	literal := allmPlaceholder.ReplaceAllString(value, "")
	if !importer.IsCredentialHeader(key, literal) || literal != value || value == "" {
		return a.text(value, w, at.Get("value"))
	}
	scheme, token := importer.SplitScheme(value)
	sec := a.AddSecret(key, fmt.Sprintf("header %s of step %s", key, stepName), value)
	if token != value {
		return importer.Template([]importer.TPart{{Lit: scheme}, {Expr: importer.Ref("secret", sec)}}, false)
	}
	return importer.Ref("secret", sec)
}

// llmInstruction is an llm step whose prompt is the instruction, sent
// as one user message (executors/llm-instruction.js); its result is the
// reply's text.
func (a *allm) llmInstruction(i int, cfg *importer.JV, w importer.Where) (string, *allmVar) {
	name := a.Name("step", a.varName(cfg), "llm_instruction")
	b, body := importer.NewStep(name, "llm")
	instr := cfg.Get("instruction")
	prompt := ""
	switch {
	case instr == nil:
	case instr.Kind == 's':
		prompt = instr.Str
	default:
		prompt = string(a.Src.Bytes[instr.Rng.Start.Byte:instr.Rng.End.Byte])
	}
	body.SetAttributeRaw("prompt", importer.Clone(a.text(prompt, w, instr)))
	a.Step(fmt.Sprintf("AnythingLLM step %d: llmInstruction", i), b)
	return name, &allmVar{value: importer.Ref("step", name, "text")}
}

// webScraping is a scrape step (executors/web-scraping.js): captureAs
// text gives the page's text, html its HTML, querySelector the HTML
// inside the elements the selector matches.
func (a *allm) webScraping(i int, cfg *importer.JV, w importer.Where) (string, *allmVar) {
	name := a.Name("step", a.varName(cfg), "web_scraping")
	b, body := importer.NewStep(name, "scrape")
	body.SetAttributeRaw("url", importer.Clone(a.text(cfg.Text("url"), w, cfg.Get("url"))))
	out := "text"
	switch capture := cfg.Text("captureAs"); capture {
	case "", "text":
	case "html":
		out = "html"
	case "querySelector":
		out = "html"
		if sel := cfg.Text("querySelector"); sel != "" {
			body.SetAttributeRaw("selector", importer.Clone(a.text(sel, w, cfg.Get("querySelector"))))
		}
	default:
		a.Warn(w, cfg.Get("captureAs"), "Unknown captureAs", fmt.Sprintf("captureAs %q is none of text, html, querySelector: the step takes the page's text.", capture))
	}
	if cfg.Boolean(true, "enableSummarization") {
		a.Warn(w, cfg.Get("enableSummarization"), "Content kept whole",
			"AnythingLLM summarises a page whose tokens exceed the context window of the agent's model (enableSummarization, on unless set to false); the flow keeps the page's content whole, as AnythingLLM does for pages that fit.")
	}
	a.Step(fmt.Sprintf("AnythingLLM step %d: webScraping %s", i, cfg.Text("url")), b)
	return name, &allmVar{value: importer.Ref("step", name, out)}
}

// allmPlaceholder is AnythingLLM's variable syntax (replaceVariables).
var allmPlaceholder = regexp.MustCompile(`\$\{([^}]+)\}`)

// text is a string of a step's config with its variables substituted.
func (a *allm) text(s string, w importer.Where, at *importer.JV) importer.Expr {
	var parts []importer.TPart
	last := 0
	for _, m := range allmPlaceholder.FindAllStringSubmatchIndex(s, -1) {
		parts = append(parts, importer.TPart{Lit: s[last:m[0]]})
		if e, ok := a.interpolate(s[m[2]:m[3]], w, at); ok {
			parts = append(parts, importer.TPart{Expr: e})
		} else {
			parts = append(parts, importer.TPart{Lit: s[m[0]:m[1]]})
		}
		last = m[1]
	}
	parts = append(parts, importer.TPart{Lit: s[last:]})
	what := "step " + w.Name
	if w.Name == "" {
		what = "step " + w.Typ
	}
	return importer.Template(a.HideCredentials(parts, what), false)
}

// interpolate is the text a ${path} becomes: the value of the variable
// (or of the path into it) as text, an object as its JSON.
func (a *allm) interpolate(path string, w importer.Where, at *importer.JV) (importer.Expr, bool) {
	e, dynamic, ok := a.resolve(path, w, at)
	if !ok {
		return nil, false
	}
	if !dynamic {
		return e, true
	}
	return importer.Call("try", importer.Call("tostring", e), importer.Call("jsonencode", e)), true
}

// resolve finds the value ${path} stands for, as AnythingLLM's
// getValueFromPath reads the path: dots outside brackets separate keys,
// [N] indexes an array, ["key"] names a key.
func (a *allm) resolve(path string, w importer.Where, at *importer.JV) (importer.Expr, bool, bool) {
	parts := allmPath(path)
	if len(parts) == 0 {
		return nil, false, false
	}
	root := strings.Trim(strings.TrimSuffix(strings.TrimPrefix(parts[0], "["), "]"), `'"`)
	v := a.vars[root]
	if v == nil {
		if !a.warned[path] {
			a.warned[path] = true
			a.Warn(w, at, "Undefined variable", fmt.Sprintf("no variable and no earlier step defines %q: AnythingLLM leaves ${%s} in the text as it is, and so does the flow.", root, path))
		}
		return nil, false, false
	}
	if len(parts) == 1 {
		return v.value, v.dynamic, true
	}
	if !v.dynamic {
		if !a.warned[path] {
			a.warned[path] = true
			a.Warn(w, at, "Path into text", fmt.Sprintf("%q holds text, which has no fields: AnythingLLM leaves ${%s} in the text as it is, and so does the flow.", root, path))
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
	return importer.Index(v.value, steps...), true, true
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
func (a *allm) jsonBody(s string, w importer.Where, at *importer.JV) (importer.Expr, error) {
	ms := allmPlaceholder.FindAllStringSubmatchIndex(s, -1)
	var spans []importer.Span
	var exprs []importer.Expr
	var dyn []bool
	for _, m := range ms {
		e, dynamic, ok := a.resolve(s[m[2]:m[3]], w, at)
		if !ok {
			continue // stays literal text
		}
		spans = append(spans, importer.Span{Start: m[0], End: m[1]})
		exprs = append(exprs, e)
		dyn = append(dyn, dynamic)
	}
	asText := func(i int) importer.Expr {
		if !dyn[i] {
			return exprs[i]
		}
		return importer.Call("try", importer.Call("tostring", exprs[i]), importer.Call("jsonencode", exprs[i]))
	}
	return importer.JSONTemplate(s, spans, asText, func(i int) importer.Expr { return importer.Call("jsondecode", asText(i)) })
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
