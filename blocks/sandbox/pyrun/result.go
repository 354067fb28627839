package pyrun

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Reply is what the runner answers a call with (the fields of package
// isolate's reply message that a python worker sets).
type Reply struct {
	// Outputs are the outputs execute returned, each as JSON.
	Outputs map[string]json.RawMessage
	// Error is what went wrong instead, in the runner's words
	// ("ValueError: boom"); Line is where, a line of the file holding the
	// code (0: nowhere in particular); Kind is "memory" for a MemoryError,
	// "output" for a result that does not fit, "exit" for a SystemExit or
	// KeyboardInterrupt, "tamper" for a call that changed the interpreter.
	Error string
	Line  int
	Kind  string
	// Timeout: the call's deadline stopped it.
	Timeout bool
}

// Finish turns a python worker's reply into the call's result, or its
// error: a *sandbox.Error at the line of the code where it happened. Each
// output is read with the type its JSON implies and converted to the
// output field's type; one that does not convert is an error naming the
// output, the type expected and the value got.
func Finish(def *lang.BlockDef, r Reply, fields []*lang.Field) (*blocks.Result, error) {
	switch {
	case r.Timeout:
		return nil, errorAt(def, r.Line, "exceeded its timeout", context.DeadlineExceeded)
	case r.Kind == "memory":
		return nil, &sandbox.Error{Block: def.Name, Text: " exceeded its memory limit"}
	case r.Error != "":
		return nil, errorAt(def, r.Line, r.Error, nil)
	}
	vals := make(map[string]cty.Value, len(r.Outputs))
	for k, b := range r.Outputs {
		v, err := jsonval.Decode(b)
		if err != nil {
			return nil, errorAt(def, 0, fmt.Sprintf("output %q came back unreadable: %s", k, err), nil)
		}
		vals[k] = v
	}
	if len(fields) == 0 {
		return &blocks.Result{Outputs: vals}, nil
	}
	out := make(map[string]cty.Value, len(fields))
	for _, f := range fields {
		v, ok := vals[f.Name]
		if !ok {
			return nil, errorAt(def, 0, fmt.Sprintf("execute returned no output %q", f.Name), nil)
		}
		cv, err := convert.Convert(v, f.Type.Type)
		if err != nil {
			return nil, errorAt(def, 0, fmt.Sprintf("output %q must be %s, not %s: %s", f.Name,
				lang.FriendlyTypeName(f.Type.Type), pyValue(v), lang.FormatConvertError(err)), nil)
		}
		out[f.Name] = cv
	}
	return &blocks.Result{Outputs: out}, nil
}

// errorAt is the error of a call at line of the file holding the code
// (0: nowhere in particular).
func errorAt(def *lang.BlockDef, line int, msg string, cause error) *sandbox.Error {
	e := &sandbox.Error{Block: def.Name, Text: ": " + msg, Err: cause}
	if line > 0 {
		e.Line = line
		e.Text = " line " + strconv.Itoa(line) + ": " + msg
		if codeLine := line - max(def.SourceLine, 1) + 1; codeLine > 0 {
			e.Range = sandbox.Range(def, codeLine, 0, 0)
		}
	}
	return e
}

// pyValue shows a value as Python would write it, with its Python type:
// `'abc' (str)`, `[1, 2] (list)`, `None`; long values are cut.
func pyValue(v cty.Value) string {
	var b strings.Builder
	writePy(&b, v, 0)
	s := b.String()
	if len(s) > 120 {
		s = s[:sandbox.RuneOffset(s, 117)] + "…"
	}
	if v.IsNull() {
		return s
	}
	return s + " (" + pyType(v) + ")"
}

func pyType(v cty.Value) string {
	ty := v.Type()
	switch {
	case ty == cty.String:
		return "str"
	case ty == cty.Bool:
		return "bool"
	case ty == cty.Number:
		if v.AsBigFloat().IsInt() {
			return "int"
		}
		return "float"
	case ty.IsObjectType() || ty.IsMapType():
		return "dict"
	}
	return "list"
}

func writePy(b *strings.Builder, v cty.Value, depth int) {
	if b.Len() > 200 || depth > 20 {
		b.WriteString("…")
		return
	}
	ty := v.Type()
	switch {
	case v.IsNull():
		b.WriteString("None")
	case !v.IsKnown():
		b.WriteString("?")
	case ty == cty.String:
		b.WriteString(strconv.Quote(v.AsString()))
	case ty == cty.Bool:
		if v.True() {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case ty == cty.Number:
		b.WriteString(v.AsBigFloat().Text('g', -1))
	case ty.IsObjectType() || ty.IsMapType():
		b.WriteByte('{')
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			k, e := it.Element()
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(k.AsString()) + ": ")
			writePy(b, e, depth+1)
		}
		b.WriteByte('}')
	default:
		b.WriteByte('[')
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, e := it.Element()
			if i > 0 {
				b.WriteString(", ")
			}
			writePy(b, e, depth+1)
		}
		b.WriteByte(']')
	}
}
