package compiler

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonschema"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// triggers checks each trigger: the secret it names is declared, the
// output it answers with too, the flow of an on_run exists and the flows'
// on_run triggers form no cycle, when is a condition, and its inputs
// mapping fits the flow's inputs, with request.body of the type
// body_schema declares (of any type when none) and run.outputs of any.
func (c *compilation) triggers() hcl.Diagnostics {
	var diags hcl.Diagnostics
	p := c.prog
	if p.Flow == nil {
		return nil
	}
	for _, t := range p.Triggers {
		if w := t.Webhook; w != nil && w.Secret != "" && p.SecretsByName[w.Secret] == nil {
			diags = append(diags, lang.Error(w.SecretRange, "Unknown secret", "Trigger %q names secret %q, which flow %q does not declare.%s",
				t.Name, w.Secret, p.Flow.Name, lang.Suggest(w.Secret, lang.SortedKeys(p.SecretsByName)))...)
		}
		if w := t.Webhook; w != nil && w.HeaderSecret != "" && p.SecretsByName[w.HeaderSecret] == nil {
			diags = append(diags, lang.Error(w.HeaderRange, "Unknown secret", "Trigger %q names secret %q, which flow %q does not declare.%s",
				t.Name, w.HeaderSecret, p.Flow.Name, lang.Suggest(w.HeaderSecret, lang.SortedKeys(p.SecretsByName)))...)
		}
		if t.Respond == lang.RespondOutput && p.OutputsByName[t.Output] == nil {
			diags = append(diags, lang.Error(t.RespondRange, "Unknown output", "Trigger %q answers with output %q, which flow %q does not declare.%s",
				t.Name, t.Output, p.Flow.Name, lang.Suggest(t.Output, lang.SortedKeys(p.OutputsByName)))...)
		}
		if o := p.OutputsByName[t.Output]; t.Respond == lang.RespondOutput && o != nil && o.Sensitive {
			diags = append(diags, lang.Error(t.RespondRange, "Sensitive output", "Trigger %q answers with output %q, which is sensitive: its caller would get \"(sensitive)\", never its value; answer with another output.",
				t.Name, t.Output)...)
		}
		if t.OnRun != nil {
			diags = append(diags, c.onRunFlow(t)...)
		}
		if w := t.Webhook; w != nil && w.BodySchemaFile != nil {
			d := p.readBodySchema(t)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
		}
		vars := TriggerVars(t, cty.UnknownVal(t.BodyType()), cty.UnknownVal(cty.Map(cty.String)), cty.UnknownVal(cty.Map(cty.String)),
			cty.UnknownVal(cty.String), map[string]cty.Value{"outputs": cty.DynamicVal, "status": cty.UnknownVal(cty.String),
				"id": cty.UnknownVal(cty.String), "flow": cty.UnknownVal(cty.String)})
		if _, d := p.TriggerWhen(t, vars); d.HasErrors() {
			diags = append(diags, d...)
		}
		_, d := p.TriggerInputs(t, vars)
		diags = append(diags, d...)
	}
	return diags
}

// readBodySchema reads the JSON Schema body_schema gives as text
// (file("NAME.json")) into the type request.body is checked against.
func (p *Program) readBodySchema(t *lang.Trigger) hcl.Diagnostics {
	w := t.Webhook
	v, diags := w.BodySchemaFile.Value(&hcl.EvalContext{Functions: lang.Functions(p.Dir)})
	if diags.HasErrors() {
		return diags
	}
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return lang.Error(w.BodySchemaRange, "Invalid body_schema",
			"body_schema is an object of types, such as { ref = string }, or the text of a JSON Schema, such as file(\"push.schema.json\").")
	}
	ty, err := jsonschema.TypeOf([]byte(v.AsString()))
	if err != nil {
		return lang.Error(w.BodySchemaRange, "Invalid body_schema", "The JSON Schema of trigger %q does not read: %s.", t.Name, err)
	}
	w.BodySchema = ty
	return nil
}

// TriggerVars are the variables a trigger's expressions read: request
// (body, headers, query, method) for a webhook, run (outputs, status, id,
// flow) for an on_run.
func TriggerVars(t *lang.Trigger, body, headers, query, method cty.Value, run map[string]cty.Value) map[string]cty.Value {
	if t.Webhook != nil {
		return map[string]cty.Value{"request": cty.ObjectVal(map[string]cty.Value{
			"body": body, "headers": headers, "query": query, "method": method})}
	}
	return map[string]cty.Value{"run": cty.ObjectVal(run)}
}

// TriggerWhen evaluates a trigger's when with vars (TriggerVars): true
// when it has none.
func (p *Program) TriggerWhen(t *lang.Trigger, vars map[string]cty.Value) (bool, hcl.Diagnostics) {
	if t.When == nil {
		return true, nil
	}
	v, diags := t.When.Value(&hcl.EvalContext{Variables: vars, Functions: lang.Functions(p.Dir)})
	if diags.HasErrors() {
		return false, diags
	}
	b, err := convert.Convert(v, cty.Bool)
	if err != nil || b.IsNull() {
		return false, lang.Error(t.When.Range(), "Invalid when", "The when of trigger %q is a condition, true or false, not %s.", t.Name, lang.FriendlyTypeName(v.Type()))
	}
	return !b.IsKnown() || b.True(), nil
}

// TriggerInputs are the input values of the run a trigger starts: its
// inputs evaluated with vars (TriggerVars), else the defaults.
func (p *Program) TriggerInputs(t *lang.Trigger, vars map[string]cty.Value) (map[string]cty.Value, hcl.Diagnostics) {
	given := map[string]InputValue{}
	src := fmt.Sprintf("trigger %q", t.Name)
	if t.Inputs != nil {
		v, diags := t.Inputs.Value(&hcl.EvalContext{Variables: vars, Functions: lang.Functions(p.Dir)})
		if diags.HasErrors() {
			return nil, diags
		}
		if v.IsNull() || !v.IsKnown() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
			return nil, lang.Error(t.Inputs.Range(), "Invalid inputs",
				"The inputs of trigger %q are an object of the flow's input values, such as { repo = request.body.repository.full_name }.", t.Name)
		}
		for k, iv := range v.AsValueMap() {
			given[k] = InputValue{Value: iv, Source: src}
		}
	}
	in, diags := p.ResolveInputs(given)
	rng := t.NameRange
	if t.Inputs != nil {
		rng = t.Inputs.Range()
	}
	for _, d := range diags {
		d.Subject = rng.Ptr()
		if m := missingInputRE.FindStringSubmatch(d.Detail); d.Summary == "Missing required input" && m != nil {
			d.Detail = fmt.Sprintf("Input %q has no default, so trigger %q must give it: inputs = { %s = ... }.", m[1], t.Name, m[1])
		}
	}
	return in, diags
}

// CheckBody converts a request's body to the type body_schema declares;
// the error names the field that does not fit, such as
// body.repository.full_name.
func CheckBody(t *lang.Trigger, body cty.Value) (cty.Value, error) {
	ty := t.BodyType()
	if ty == cty.DynamicPseudoType {
		return body, nil
	}
	if err := fits(body, ty, "body"); err != nil {
		return cty.NilVal, err
	}
	v, err := convert.Convert(body, ty)
	if err != nil {
		return cty.NilVal, fmt.Errorf("body: %s", lang.FormatConvertError(err))
	}
	return v, nil
}

// fits reports the first value under v, by path, that is not of ty.
func fits(v cty.Value, ty cty.Type, path string) error {
	vt := v.Type()
	switch {
	case ty == cty.DynamicPseudoType:
		return nil
	case !v.IsKnown():
		return nil
	case v.IsNull():
		return fmt.Errorf("%s: %s is required", path, lang.FriendlyTypeName(ty))
	case ty.IsObjectType():
		if !vt.IsObjectType() && !vt.IsMapType() {
			return fmt.Errorf("%s: an object is required, not %s", path, jsonKind(vt))
		}
		names := lang.SortedKeys(ty.AttributeTypes())
		for _, name := range names {
			missing := vt.IsObjectType() && !vt.HasAttribute(name) || vt.IsMapType() && !v.HasIndex(cty.StringVal(name)).True()
			if missing && ty.AttributeOptional(name) {
				continue
			}
			if missing {
				return fmt.Errorf("%s.%s: %s is required", path, name, lang.FriendlyTypeName(ty.AttributeType(name)))
			}
			var av cty.Value
			if vt.IsObjectType() {
				av = v.GetAttr(name)
			} else {
				av = v.Index(cty.StringVal(name))
			}
			if av.IsKnown() && av.IsNull() && ty.AttributeOptional(name) {
				continue
			}
			if err := fits(av, ty.AttributeType(name), path+"."+name); err != nil {
				return err
			}
		}
		return nil
	case ty.IsListType() || ty.IsSetType():
		if !vt.IsTupleType() && !vt.IsListType() && !vt.IsSetType() {
			return fmt.Errorf("%s: a list is required, not %s", path, jsonKind(vt))
		}
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, e := it.Element()
			if err := fits(e, ty.ElementType(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case ty.IsMapType():
		if !vt.IsObjectType() && !vt.IsMapType() {
			return fmt.Errorf("%s: an object is required, not %s", path, jsonKind(vt))
		}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if err := fits(e, ty.ElementType(), path+"."+k.AsString()); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := convert.Convert(v, ty); err != nil {
		return fmt.Errorf("%s: %s is required, not %s", path, lang.FriendlyTypeName(ty), jsonKind(vt))
	}
	return nil
}

// onRunFlow checks the flow an on_run names: it exists, and the ends of
// its runs do not, through other flows' on_run triggers, start it again.
func (c *compilation) onRunFlow(t *lang.Trigger) hcl.Diagnostics {
	self := c.prog.Flow.Name
	if _, known := c.flowFile(t.OnRun.Flow); !slices.Contains(known, t.OnRun.Flow) {
		return lang.Error(t.OnRun.FlowRange, "Unknown flow", "Trigger %q starts after runs of flow %q, but there is no such flow in the flow's directory; the flows there are %s.%s",
			t.Name, t.OnRun.Flow, listOrNone(known), lang.Suggest(t.OnRun.Flow, known))
	}
	// A path of flows each of which the end of the next's runs starts
	// back to this one.
	var walk func(name string, path []string) []string
	seen := map[string]bool{}
	walk = func(name string, path []string) []string {
		path = append(path, name)
		if name == self {
			return path
		}
		if seen[name] {
			return nil
		}
		seen[name] = true
		for _, next := range c.onRunSources(name) {
			if p := walk(next, path); p != nil {
				return p
			}
		}
		return nil
	}
	if p := walk(t.OnRun.Flow, []string{self}); p != nil {
		slices.Reverse(p)
		return lang.Error(t.OnRun.FlowRange, "Trigger cycle",
			"The ends of runs start runs in a cycle: %s (each flow's end starts the next through an on_run trigger). A run would start runs for ever.",
			strings.Join(p, " → "))
	}
	return nil
}

// flowFile is the flow file of the flow named name in the flow's
// directory ("" when none), and the names of the flows there.
func (c *compilation) flowFile(name string) (string, []string) {
	paths, _ := filepath.Glob(filepath.Join(c.prog.Dir, "*"+flowFileSuffix))
	sort.Strings(paths)
	var known []string
	file := ""
	for _, path := range paths {
		n := c.flowName(path)
		if n == "" {
			continue
		}
		known = append(known, n)
		if n == name && file == "" {
			file = path
		}
	}
	return file, known
}

// onRunSources are the flows whose runs' ends start runs of the flow
// named name (its triggers' on_run flows), read from its file's syntax.
func (c *compilation) onRunSources(name string) []string {
	if name == c.prog.Flow.Name {
		var out []string
		for _, t := range c.prog.Triggers {
			if t.OnRun != nil {
				out = append(out, t.OnRun.Flow)
			}
		}
		return out
	}
	file, _ := c.flowFile(name)
	if file == "" {
		return nil
	}
	f, _ := c.opts.Parser.ParseFile(file)
	if f == nil {
		return nil
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	var out []string
	for _, b := range body.Blocks {
		if b.Type != "trigger" {
			continue
		}
		for _, ob := range b.Body.Blocks {
			if a := ob.Body.Attributes["flow"]; ob.Type == "on_run" && a != nil {
				if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
					out = append(out, v.AsString())
				}
			}
		}
	}
	return out
}

// jsonKind names the kind of JSON value of a type.
func jsonKind(ty cty.Type) string {
	switch {
	case ty == cty.String:
		return "a string"
	case ty == cty.Number:
		return "a number"
	case ty == cty.Bool:
		return "a boolean"
	case ty.IsObjectType() || ty.IsMapType():
		return "an object"
	case ty.IsTupleType() || ty.IsListType() || ty.IsSetType():
		return "a list"
	}
	return lang.FriendlyTypeName(ty)
}
