package runtime

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// The input fields of an approval step (`input "NAME" { type, description,
// default }`): its request records them (state.Approval.Fields), so that
// whoever decides — flowctl approve --set, the API, the dashboard's form —
// is checked against them without the flow; the values given are recorded
// with the decision (state.Approval.Inputs) and become the step's outputs.

// An ApprovalField is an input field of an approval step as its request
// records it: Type as written in the flow (number, list(string)),
// TypeJSON as cty's JSON type, Default the default as JSON (absent when
// the field is required).
type ApprovalField struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	TypeJSON    json.RawMessage `json:"type_json"`
	Description string          `json:"description,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
}

// approvalFieldsJSON are step s's input fields as its request records
// them; nil when it has none.
func approvalFieldsJSON(s *compiler.Step) json.RawMessage {
	if len(s.ApprovalInputs) == 0 {
		return nil
	}
	out := make([]ApprovalField, 0, len(s.ApprovalInputs))
	for _, f := range s.ApprovalInputs {
		ty := f.Type.Type
		tj, _ := ctyjson.MarshalType(ty)
		af := ApprovalField{Name: f.Name, Type: lang.TypeString(ty), TypeJSON: tj, Description: f.Description}
		if f.Default != cty.NilVal {
			if v, err := convert.Convert(f.Default, ty); err == nil {
				af.Default, _ = jsonval.Marshal(v)
			}
		}
		out = append(out, af)
	}
	b, _ := json.Marshal(out)
	return b
}

// ApprovalFields reads the input fields an approval's request recorded.
func ApprovalFields(raw json.RawMessage) ([]ApprovalField, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var fs []ApprovalField
	if err := json.Unmarshal(raw, &fs); err != nil {
		return nil, fmt.Errorf("the approval's input fields cannot be read: %w", err)
	}
	return fs, nil
}

func (f *ApprovalField) cty() (cty.Type, error) {
	return ctyjson.UnmarshalType(f.TypeJSON)
}

// ApprovalValues checks the values given for an approval's input fields
// (recorded as fields, state.Approval.Fields) and returns them as the
// decision records them, a JSON object with every field: each value
// converted to its field's type, a field not given its default. A value
// of the wrong type, a required field not given, or a name that is no
// field is an error that says so; nothing is recorded then.
func ApprovalValues(fields json.RawMessage, given map[string]cty.Value) (json.RawMessage, error) {
	fs, err := ApprovalFields(fields)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	for _, name := range slices.Sorted(maps.Keys(given)) {
		if !slices.Contains(names, name) {
			if len(fs) == 0 {
				return nil, fmt.Errorf("the approval step has no input fields, so %q cannot be given", name)
			}
			return nil, fmt.Errorf("the approval step has no input field %q; its fields are %s.%s", name, strings.Join(names, ", "), lang.Suggest(name, names))
		}
	}
	if len(fs) == 0 {
		return nil, nil
	}
	out := map[string]cty.Value{}
	for _, f := range fs {
		ty, err := f.cty()
		if err != nil {
			return nil, fmt.Errorf("the type of input field %q cannot be read: %w", f.Name, err)
		}
		v, ok := given[f.Name]
		switch {
		case ok && !v.IsNull():
			c, err := convert.Convert(v, ty)
			if err != nil {
				return nil, fmt.Errorf("input field %q is %s: the value given (%s) is not: %s", f.Name, f.Type, shortValue(v), err)
			}
			out[f.Name] = c
		case len(f.Default) > 0:
			d, err := jsonval.Decode(f.Default)
			if err != nil {
				return nil, fmt.Errorf("the default of input field %q cannot be read: %w", f.Name, err)
			}
			out[f.Name] = d
		default:
			detail := ""
			if f.Description != "" {
				detail = " (" + strings.TrimSuffix(f.Description, ".") + ")"
			}
			return nil, fmt.Errorf("input field %q%s is required: give it a %s value", f.Name, detail, f.Type)
		}
	}
	return jsonval.MarshalAttrs(out)
}

// ApprovalSets are the values of --set NAME=VALUE for an approval's
// fields: a string field takes VALUE as it is, another VALUE as JSON
// (120, true, ["a"]), else as a string, which its type then refuses.
func ApprovalSets(fields json.RawMessage, sets []string) (map[string]cty.Value, error) {
	fs, err := ApprovalFields(fields)
	if err != nil {
		return nil, err
	}
	out := map[string]cty.Value{}
	for _, s := range sets {
		name, value, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("--set %q is not NAME=VALUE", s)
		}
		v := cty.StringVal(value)
		i := slices.IndexFunc(fs, func(f ApprovalField) bool { return f.Name == name })
		if i < 0 || fs[i].Type != "string" {
			if d, err := jsonval.Decode([]byte(value)); err == nil {
				v = d
			}
		}
		out[name] = v
	}
	return out, nil
}

func shortValue(v cty.Value) string {
	b, err := jsonval.Marshal(v)
	if err != nil {
		return lang.FriendlyTypeName(v.Type())
	}
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// approvalOutputs are the outputs of an approval step instance that ends
// approved: the decision (Decision), and each input field's value given
// (inputs, as recorded) or its default, null when neither.
func approvalOutputs(s *compiler.Step, d Decision, at time.Time, inputs json.RawMessage) (cty.Value, error) {
	attrs := map[string]cty.Value{
		"approved":   cty.BoolVal(d.Approved),
		"comment":    cty.StringVal(d.Comment),
		"by":         cty.StringVal(d.By),
		"decided_at": cty.StringVal(JSONTime(at)),
	}
	var given map[string]cty.Value
	if len(inputs) > 0 {
		var err error
		if given, err = jsonval.DecodeAttrs(inputs); err != nil {
			return cty.NilVal, fmt.Errorf("the values given with the decision cannot be read: %w", err)
		}
	}
	for _, f := range s.ApprovalInputs {
		ty := f.Type.Type
		v, ok := given[f.Name]
		if !ok && f.Default != cty.NilVal {
			v, ok = f.Default, true
		}
		if !ok {
			attrs[f.Name] = cty.NullVal(ty)
			continue
		}
		c, err := convert.Convert(v, ty)
		if err != nil {
			return cty.NilVal, fmt.Errorf("input field %q is %s, and the value given is not: %s", f.Name, lang.TypeString(ty), err)
		}
		attrs[f.Name] = c
	}
	return cty.ObjectVal(attrs), nil
}

// Decide records a decision of step's instance of a run that waits for
// one, with the values of its input fields given as NAME=VALUE (flowctl
// approve --set), checked against the fields its request recorded: a
// value of the wrong type, or a required field left out, is a diagnostic
// and nothing is recorded (the approval stays pending). A rejection
// takes no values. Errors of the state are returned as they are
// (state.ErrNotWaiting: NotWaiting explains it).
func Decide(st *state.Store, runID, step, instance string, approved bool, comment, by string, sets []string) (*state.Approval, error) {
	var inputs json.RawMessage
	a, err := st.Approval(runID, step, instance)
	switch {
	case err != nil:
		return nil, err
	case !approved && len(sets) > 0:
		return nil, invalidInputs("A rejection takes no input values: leave out --set, or approve.")
	case approved && a != nil && !a.Closed && !a.Decided():
		given, err := ApprovalSets(a.Fields, sets)
		if err == nil {
			inputs, err = ApprovalValues(a.Fields, given)
		}
		if err != nil {
			return nil, invalidInputs(sentenceOf(err.Error()) + " The step still waits for a decision.")
		}
	}
	return st.DecideApprovalWith(runID, step, instance, approved, comment, by, inputs)
}

func invalidInputs(detail string) hcl.Diagnostics {
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid input values", Detail: detail}}
}

// sentenceOf is an error's text as a sentence.
func sentenceOf(msg string) string {
	msg = strings.TrimSuffix(strings.TrimSpace(msg), ".")
	if msg == "" {
		return msg
	}
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}
