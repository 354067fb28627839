package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/spf13/cobra"
	"github.com/zclconf/go-cty/cty"
)

// inputFlags are the --input and --input-file flags of plan, apply and
// watch.
type inputFlags struct {
	pairs []string
	files []string
}

func (f *inputFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.pairs, "input", nil, "set an input: NAME=VALUE, VALUE an HCL literal or else a string (repeatable)")
	cmd.Flags().StringArrayVar(&f.files, "input-file", nil, "read input values from a JSON object file (repeatable)")
}

// values parses the flags: --input-file values first, in order, then each
// --input, so that a flag overrides a file.
func (f *inputFlags) values() (map[string]compiler.InputValue, hcl.Diagnostics, error) {
	out := map[string]compiler.InputValue{}
	var diags hcl.Diagnostics
	// The environment first: --input-file and --input win.
	for _, kv := range os.Environ() {
		name, raw, _ := strings.Cut(kv, "=")
		name, ok := strings.CutPrefix(name, compiler.EnvInputPrefix)
		if !ok || name == "" {
			continue
		}
		out[name] = compiler.InputValue{Value: parseInputValue(raw), Raw: &raw, Source: compiler.EnvInputPrefix + name, Optional: true}
	}
	for _, file := range f.files {
		vals, d := readInputFile(file)
		diags = append(diags, d...)
		for k, v := range vals {
			out[k] = compiler.InputValue{Value: v, Source: file}
		}
	}
	for _, pair := range f.pairs {
		name, raw, ok := strings.Cut(pair, "=")
		if !ok || name == "" {
			return nil, nil, usagef("--input %q must have the form NAME=VALUE", pair)
		}
		out[name] = compiler.InputValue{Value: parseInputValue(raw), Raw: &raw, Source: "--input " + name}
	}
	return out, diags, nil
}

// parseInputValue reads a command-line value: an HCL literal (a number,
// bool, quoted string, list or object with no references) is taken as
// that value, anything else as a string.
func parseInputValue(raw string) cty.Value {
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

func readInputFile(name string) (map[string]cty.Value, hcl.Diagnostics) {
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, hcl.Diagnostics{pathError(name, err)}
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(src, &raw); err != nil {
		reason := err.Error()
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			reason = "it holds " + lang.Article(te.Value) + " " + te.Value
		}
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid input file",
			Detail:   fmt.Sprintf("The input file %s must hold one JSON object of input values, such as {\"topic\": \"news\"}; %s.", name, reason),
		}}
	}
	out := map[string]cty.Value{}
	var diags hcl.Diagnostics
	for k, msg := range raw {
		v, err := jsonval.Decode(msg)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid input file",
				Detail:   fmt.Sprintf("The value of %q in %s is not valid JSON: %s.", k, name, err),
			})
			continue
		}
		out[k] = v
	}
	return out, diags
}
