package compiler

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// InputValue is a value given for a flow input, with where it came from
// ("--input topic=…", "inputs.json") for messages. Raw is the text of a
// command-line value: an input of type string takes it as it is, so that
// --input zip=02134 stays "02134".
type InputValue struct {
	// Value is the value given; NilVal when it was given as JSON alone
	// (JSON), which ResolveInputs reads straight into the input's type.
	Value cty.Value
	Raw   *string
	// JSON is the text the value was given as when it was given as JSON
	// (an --input-file): see Decoded and GivenJSON.
	JSON   json.RawMessage
	Source string
	// Optional: a value for an input the flow may not have (one from the
	// environment, FLOWCTL_INPUT_NAME), ignored when it has none.
	Optional bool
}

// Decoded is the value given: Value, else the JSON text read as the value
// of the type it implies (jsonval.Decode).
func (g InputValue) Decoded() (cty.Value, error) {
	if g.Value != cty.NilVal || g.JSON == nil {
		return g.Value, nil
	}
	return jsonval.Decode(g.JSON)
}

// isNull reports whether the value given is null: not set.
func (g InputValue) isNull() bool {
	if g.Value == cty.NilVal && g.JSON != nil {
		return string(bytes.TrimSpace(g.JSON)) == "null"
	}
	return g.Value.IsNull()
}

// EnvInputPrefix begins the environment variables that give inputs, after
// --input and --input-file: FLOWCTL_INPUT_TOPIC for input topic (or, as
// it is written, FLOWCTL_INPUT_topic).
const EnvInputPrefix = "FLOWCTL_INPUT_"

// ResolveInputs checks the given values against the flow's inputs and
// returns a value for every input: the given one converted to the input's
// type, else its default. Unknown names and missing required inputs are
// errors.
func (p *Program) ResolveInputs(given map[string]InputValue) (map[string]cty.Value, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	out := make(map[string]cty.Value, len(p.Inputs))
	for _, name := range lang.SortedKeys(given) {
		if p.InputsByName[name] == nil && !given[name].Optional {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Unknown input",
				Detail: sprintf("%s sets input %q, but flow %q declares no such input.%s",
					given[name].Source, name, p.Flow.Name, lang.Suggest(name, lang.SortedKeys(p.InputsByName))),
			})
		}
	}
	for _, in := range p.Inputs {
		g, ok := given[in.Name]
		if ok && g.Raw != nil && in.Type.Type == cty.String {
			g.Value = cty.StringVal(*g.Raw)
		}
		if ok && g.isNull() {
			ok = false // null means not set, as for a Terraform variable
		}
		if ok && g.Value == cty.NilVal {
			// Given as JSON: read straight into the input's type when
			// the text holds a value of it as it is (a list of 100,000
			// records is not read into a tuple, then converted), else
			// read and converted as any other value, for the
			// conversion's rules and errors.
			if in.Type.Defaults == nil {
				if v, typed := jsonval.DecodeAs(g.JSON, in.Type.Type); typed {
					out[in.Name] = v
					continue
				}
			}
			v, err := g.Decoded()
			if err != nil {
				diags = append(diags, lang.Error(in.NameRange, "Invalid input value",
					"The value given for input %q by %s is not valid JSON: %s.", in.Name, g.Source, err)...)
				continue
			}
			g.Value = v
		}
		if !ok {
			if in.Required() {
				diags = append(diags, lang.Error(in.NameRange, "Missing required input",
					"Input %q has no default, so a value must be given with --input %s=VALUE, --input-file or %s%s.", in.Name, in.Name, EnvInputPrefix, strings.ToUpper(in.Name))...)
				continue
			}
			out[in.Name] = in.Default
			continue
		}
		v := g.Value
		if in.Type.Defaults != nil && !v.IsNull() {
			v = in.Type.Defaults.Apply(v)
		}
		cv, err := lang.Convert(v, in.Type.Type)
		if err != nil {
			diags = append(diags, lang.Error(in.NameRange, "Invalid input value",
				"The value given for input %q by %s is not %s: %s.", in.Name, g.Source,
				lang.FriendlyTypeName(in.Type.Type), lang.FormatConvertError(err))...)
			continue
		}
		out[in.Name] = cv
	}
	return out, diags
}

// GivenJSON is the JSON text of the values given as JSON for inputs the
// flow declares, not sensitive and not null: what a run records of those
// inputs as they were given (runtime.Options.InputsJSON), rather than
// encoding their values again. A resumed run converts them again as
// ResolveInputs did.
func (p *Program) GivenJSON(given map[string]InputValue) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for name, g := range given {
		in := p.InputsByName[name]
		if in == nil || in.Sensitive || g.JSON == nil || g.isNull() {
			continue
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		out[name] = g.JSON
	}
	return out
}
