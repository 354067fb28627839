// Package inputs reads the values given to a flow's inputs, as every
// command that runs flows takes them: from the environment
// (FLOWCTL_INPUT_NAME), from files of values (JSON, or HCL attributes as
// a .tfvars file) and from NAME=VALUE pairs (--input), each value an HCL
// literal or else a string. The values are compiler.InputValues, which
// the compiler's Program.ResolveInputs converts to the inputs' types;
// the sibling package compiler declares the inputs.
package inputs

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Given are the values a command is given: the environment's (FromEnv)
// first, then each file's (ReadFile), in order, then each NAME=VALUE
// pair of pairs (--input), so that a flag overrides a file and a file the
// environment. The files are read with p, which keeps them for the
// diagnostics' snippets. The error is a mistake in what was given: a
// pair without a name, or two variables for one input.
func Given(p *lang.Parser, environ, files, pairs []string) (map[string]compiler.InputValue, hcl.Diagnostics, error) {
	out, err := FromEnv(environ)
	if err != nil {
		return nil, nil, err
	}
	var diags hcl.Diagnostics
	for _, file := range files {
		vals, d := ReadFile(p, file)
		diags = append(diags, d...)
		maps.Copy(out, vals)
	}
	for _, pair := range pairs {
		name, raw, ok := strings.Cut(pair, "=")
		if !ok || name == "" {
			return nil, nil, fmt.Errorf("--input %q must have the form NAME=VALUE", pair)
		}
		out[name] = compiler.InputValue{Value: ParseValue(raw), Raw: &raw, Source: "--input " + name}
	}
	return out, diags, nil
}

// FromEnv are the inputs the environment gives: FLOWCTL_INPUT_NAME, the
// input's name upper-cased as secrets' variables are (FLOWCTL_INPUT_TOPIC
// for input topic), or as it is written (FLOWCTL_INPUT_topic); an empty
// one is not set. Two variables for one input are an error naming both.
// --input-file and --input win over them.
func FromEnv(environ []string) (map[string]compiler.InputValue, error) {
	out := map[string]compiler.InputValue{}
	for _, kv := range environ {
		name, raw, _ := strings.Cut(kv, "=")
		rest, ok := strings.CutPrefix(name, compiler.EnvInputPrefix)
		if !ok || rest == "" || raw == "" {
			continue // an empty variable is one not set
		}
		input := strings.ToLower(rest) // input names are lower case
		if prev, ok := out[input]; ok {
			a, b := prev.Source, name
			if b < a {
				a, b = b, a
			}
			return nil, fmt.Errorf("both %s and %s give input %q; set only one", a, b, input)
		}
		out[input] = compiler.InputValue{Value: ParseValue(raw), Raw: &raw, Source: name, Optional: true}
	}
	return out, nil
}

// ParseValue reads a command-line value: an HCL literal (a number,
// bool, quoted string, list or object with no references) is taken as
// that value, anything else as a string.
func ParseValue(raw string) cty.Value {
	expr, diags := hclsyntax.ParseExpression([]byte(raw), "--input", hcl.InitialPos)
	if diags.HasErrors() || len(expr.Variables()) > 0 {
		return cty.StringVal(raw)
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		return cty.StringVal(raw)
	}
	return v
}

// ReadFile reads the input values of a file: JSON when its name ends
// in .json (one object of values), else HCL attributes (name = "ada", n =
// 3, comments; literals only), as Terraform reads a .tfvars file. Errors
// are at their file and line.
func ReadFile(p *lang.Parser, name string) (map[string]compiler.InputValue, hcl.Diagnostics) {
	if strings.EqualFold(filepath.Ext(name), ".json") {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, hcl.Diagnostics{lang.PathError(name, err)}
		}
		p.KeepSource(name, src)
		return ReadJSON(name, src)
	}
	return readHCL(p, name)
}

// readHCL reads a file of HCL attributes whose values are literals
// (no references or function calls).
func readHCL(p *lang.Parser, name string) (map[string]compiler.InputValue, hcl.Diagnostics) {
	f, diags := p.ParseFile(name)
	if diags.HasErrors() {
		return nil, diags
	}
	attrs, d := f.Body.JustAttributes()
	if d.HasErrors() {
		for _, dg := range d {
			if strings.HasPrefix(dg.Summary, "Unexpected ") {
				dg.Summary = "Invalid input file"
				dg.Detail = "An input file holds only attributes, NAME = VALUE, one for each input. " + strings.TrimSpace(dg.Detail)
			}
		}
		return nil, d
	}
	out := map[string]compiler.InputValue{}
	for _, a := range attrs {
		v, d := a.Expr.Value(nil)
		if d.HasErrors() {
			diags = append(diags, lang.Error(a.Expr.Range(), "Invalid input value",
				"The value of %q in %s must be a literal value (a string, number, bool, list or object), not an expression with references or function calls.", a.Name, name)...)
			continue
		}
		out[a.Name] = compiler.InputValue{Value: v, Source: name}
	}
	return out, diags
}

// ReadJSON reads the input values of a JSON file, name, whose content is
// src: one object of values, each kept as JSON until the flow's inputs
// are resolved.
func ReadJSON(name string, src []byte) (map[string]compiler.InputValue, hcl.Diagnostics) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(src, &raw); err != nil {
		reason := err.Error()
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			reason = "it holds " + lang.Article(te.Value) + " " + te.Value
		}
		d := &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid input file",
			Detail:   fmt.Sprintf("The input file %s must hold one JSON object of input values, such as {\"topic\": \"news\"}; %s.", name, reason),
		}
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			d.Subject = lang.OffsetRange(src, name, int(se.Offset)-1).Ptr()
		case te != nil:
			d.Subject = lang.OffsetRange(src, name, int(te.Offset)-1).Ptr()
		}
		return nil, hcl.Diagnostics{d}
	}
	// The values are read when the flow's inputs are resolved, each
	// straight into its input's type (ResolveInputs); json.Unmarshal
	// checked their syntax.
	out := make(map[string]compiler.InputValue, len(raw))
	for k, msg := range raw {
		out[k] = compiler.InputValue{JSON: msg, Source: name}
	}
	return out, nil
}
