package thinker

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/pmezard/go-difflib/difflib"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// baseFlow is the flow think --edit changes: its file as it is, and the
// same flow in the shape of a wire reply (what the model edits).
type baseFlow struct {
	path string
	src  []byte
	wire wireReply
	uses []string // the blocks its steps use
}

// wireMetaArgs are the step attributes a wire reply does not carry: the
// edit keeps them as they are.
var wireMetaArgs = []string{"use", "depends_on", "description", "timeout", "cache", "on_error", "parallelism",
	"tools", "max_tool_calls"}

// loadBase reads the flow to edit and describes it as a wire reply.
func loadBase(path string) (*baseFlow, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, stageErr(StageDecompose, err, "reading the flow to edit: %s", err)
	}
	f, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, stageErr(StageDecompose, diags, "the flow to edit does not parse: %s; fix it first (flowctl validate %s)",
			lang.ErrorSentence(diags, false), path)
	}
	b := &baseFlow{path: path, src: src}
	text := func(e hclsyntax.Expression) string {
		r := e.Range()
		return strings.TrimSpace(string(src[r.Start.Byte:r.End.Byte]))
	}
	literal := func(attrs hclsyntax.Attributes, name string) string {
		if a, ok := attrs[name]; ok {
			if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type() == cty.String && !v.IsNull() && v.IsKnown() {
				return v.AsString()
			}
		}
		return ""
	}
	for _, blk := range f.Body.(*hclsyntax.Body).Blocks {
		attrs := blk.Body.Attributes
		switch {
		case blk.Type == "flow" && len(blk.Labels) == 1:
			b.wire.Name, b.wire.Description = blk.Labels[0], literal(attrs, "description")
		case blk.Type == "input" && len(blk.Labels) == 1:
			in := wireInput{Name: blk.Labels[0], Description: literal(attrs, "description")}
			if a, ok := attrs["type"]; ok {
				in.Type = text(a.Expr)
			}
			if a, ok := attrs["default"]; ok {
				if v, d := a.Expr.Value(nil); !d.HasErrors() {
					if j, err := ctyjson.Marshal(v, v.Type()); err == nil {
						in.Default = j
					}
				}
			}
			b.wire.Inputs = append(b.wire.Inputs, in)
		case blk.Type == "step" && len(blk.Labels) == 1:
			s := wireStep{Name: blk.Labels[0], Use: literal(attrs, "use"), Args: map[string]*string{}}
			if a, ok := attrs["depends_on"]; ok {
				for _, tr := range a.Expr.Variables() {
					if len(tr) > 1 {
						if at, ok := tr[1].(hcl.TraverseAttr); ok {
							s.DependsOn = append(s.DependsOn, at.Name)
						}
					}
				}
			}
			for name, a := range attrs {
				if !slices.Contains(wireMetaArgs, name) {
					t := text(a.Expr)
					s.Args[name] = &t
				}
			}
			b.wire.Steps = append(b.wire.Steps, s)
			if s.Use != "" && !slices.Contains(b.uses, s.Use) {
				b.uses = append(b.uses, s.Use)
			}
		case blk.Type == "output" && len(blk.Labels) == 1:
			o := wireOutput{Name: blk.Labels[0]}
			if a, ok := attrs["value"]; ok {
				o.Value = text(a.Expr)
			}
			b.wire.Outputs = append(b.wire.Outputs, o)
		}
	}
	return b, nil
}

// applyEdit writes a wire reply into the flow being edited: blocks added,
// changed in place (only what differs) or removed, and everything the
// reply does not describe — comments, secrets, locals, retry blocks,
// inline blocks — kept as it was.
func applyEdit(base *baseFlow, r *wireReply, reg *blocks.Registry) ([]byte, []string, hcl.Diagnostics) {
	f, diags := hclwrite.ParseConfig(base.src, base.path, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, nil, diags
	}
	w := newFlowWriter(r, reg)
	root := f.Body()
	if fb := root.FirstMatchingBlock("flow", []string{base.wire.Name}); fb != nil && r.Description != base.wire.Description {
		if r.Description == "" {
			fb.Body().RemoveAttribute("description")
		} else {
			fb.Body().SetAttributeValue("description", cty.StringVal(r.Description))
		}
	}
	oldInputs := byName(base.wire.Inputs, func(in wireInput) string { return in.Name })
	for _, in := range r.Inputs {
		old, ok := oldInputs[in.Name]
		switch {
		case !ok:
			root.AppendNewline()
			w.input(root.AppendNewBlock("input", []string{in.Name}).Body(), in)
		case !reflect.DeepEqual(inputKey(old), inputKey(in)):
			w.input(root.FirstMatchingBlock("input", []string{in.Name}).Body(), in)
		}
	}
	oldSteps := byName(base.wire.Steps, func(s wireStep) string { return s.Name })
	for _, s := range r.Steps {
		if old, ok := oldSteps[s.Name]; ok {
			w.step(root.FirstMatchingBlock("step", []string{s.Name}).Body(), s, &old)
			continue
		}
		root.AppendNewline()
		w.step(root.AppendNewBlock("step", []string{s.Name}).Body(), s, nil)
	}
	oldOutputs := byName(base.wire.Outputs, func(o wireOutput) string { return o.Name })
	for _, o := range r.Outputs {
		old, ok := oldOutputs[o.Name]
		switch {
		case !ok:
			root.AppendNewline()
			w.output(root.AppendNewBlock("output", []string{o.Name}).Body(), o)
		case !sameExpr(old.Value, o.Value):
			w.output(root.FirstMatchingBlock("output", []string{o.Name}).Body(), o)
		}
	}
	for _, kind := range []struct {
		typ   string
		names []string
		keep  map[string]bool
	}{
		{"input", namesOf(base.wire.Inputs, func(in wireInput) string { return in.Name }), setOf(namesOf(r.Inputs, func(in wireInput) string { return in.Name }))},
		{"step", namesOf(base.wire.Steps, func(s wireStep) string { return s.Name }), setOf(namesOf(r.Steps, func(s wireStep) string { return s.Name }))},
		{"output", namesOf(base.wire.Outputs, func(o wireOutput) string { return o.Name }), setOf(namesOf(r.Outputs, func(o wireOutput) string { return o.Name }))},
	} {
		for _, name := range kind.names {
			if !kind.keep[name] {
				if blk := root.FirstMatchingBlock(kind.typ, []string{name}); blk != nil {
					root.RemoveBlock(blk)
				}
			}
		}
	}
	return hclwrite.Format(f.Bytes()), w.fixes, w.diags
}

// inputKey is what an input's change is judged by: its type as
// formatted, description and default as a JSON value.
func inputKey(in wireInput) [3]any {
	var def any
	if len(in.Default) > 0 {
		json.Unmarshal(in.Default, &def)
	}
	return [3]any{strings.Join(strings.Fields(in.Type), ""), in.Description, def}
}

// Change is what an edit does, part by part: "step count", "input
// limit", "output total"; a changed step says what changed, as in "step
// read: path, depends_on".
type Change struct {
	Added   []string `json:"added"`
	Changed []string `json:"changed"`
	Removed []string `json:"removed"`
}

// changeOf compares the flow before and after an edit.
func changeOf(old, r *wireReply) Change {
	c := Change{Added: []string{}, Changed: []string{}, Removed: []string{}}
	if old.Description != r.Description {
		c.Changed = append(c.Changed, "flow "+r.Name+": description")
	}
	oi := byName(old.Inputs, func(in wireInput) string { return in.Name })
	for _, in := range r.Inputs {
		if o, ok := oi[in.Name]; !ok {
			c.Added = append(c.Added, "input "+in.Name)
		} else if !reflect.DeepEqual(inputKey(o), inputKey(in)) {
			c.Changed = append(c.Changed, "input "+in.Name)
		}
	}
	osteps := byName(old.Steps, func(s wireStep) string { return s.Name })
	for _, s := range r.Steps {
		o, ok := osteps[s.Name]
		if !ok {
			c.Added = append(c.Added, fmt.Sprintf("step %s (%s)", s.Name, s.Use))
			continue
		}
		var what []string
		if o.Use != s.Use {
			what = append(what, "use")
		}
		for _, name := range lang.SortedKeys(unionArgs(o.Args, s.Args)) {
			a, b := o.Args[name], s.Args[name]
			if (a == nil) != (b == nil) || (a != nil && !sameExpr(*a, *b)) {
				what = append(what, name)
			}
		}
		if !slices.Equal(depNames(o.DependsOn), depNames(s.DependsOn)) {
			what = append(what, "depends_on")
		}
		if len(what) > 0 {
			c.Changed = append(c.Changed, "step "+s.Name+": "+strings.Join(what, ", "))
		}
	}
	oo := byName(old.Outputs, func(o wireOutput) string { return o.Name })
	for _, o := range r.Outputs {
		if prev, ok := oo[o.Name]; !ok {
			c.Added = append(c.Added, "output "+o.Name)
		} else if !sameExpr(prev.Value, o.Value) {
			c.Changed = append(c.Changed, "output "+o.Name)
		}
	}
	removed := func(kind string, old, now []string) {
		keep := setOf(now)
		for _, n := range old {
			if !keep[n] {
				c.Removed = append(c.Removed, kind+" "+n)
			}
		}
	}
	removed("input", namesOf(old.Inputs, func(in wireInput) string { return in.Name }), namesOf(r.Inputs, func(in wireInput) string { return in.Name }))
	removed("step", namesOf(old.Steps, func(s wireStep) string { return s.Name }), namesOf(r.Steps, func(s wireStep) string { return s.Name }))
	removed("output", namesOf(old.Outputs, func(o wireOutput) string { return o.Name }), namesOf(r.Outputs, func(o wireOutput) string { return o.Name }))
	return c
}

// Empty reports whether the change changes nothing.
func (c Change) Empty() bool { return len(c.Added)+len(c.Changed)+len(c.Removed) == 0 }

// Lines are the change as think prints it: "+ step count (count_words)",
// "~ step read: path", "- output old".
func (c Change) Lines() []string {
	var out []string
	for _, g := range []struct {
		mark  string
		items []string
	}{{"+", c.Added}, {"~", c.Changed}, {"-", c.Removed}} {
		for _, it := range g.items {
			out = append(out, g.mark+" "+it)
		}
	}
	return out
}

// unifiedDiff is the unified diff of a file from old to new (old nil: a
// new file).
func unifiedDiff(name string, old, new []byte) string {
	from := "a/" + name
	if old == nil {
		from = "/dev/null"
	}
	d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: lines(old), B: lines(new), FromFile: from, ToFile: "b/" + name, Context: 3,
	})
	return d
}

// lines splits text into lines that keep their newlines; none for no
// text.
func lines(b []byte) []string {
	out := strings.SplitAfter(string(b), "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func byName[T any](list []T, name func(T) string) map[string]T {
	m := make(map[string]T, len(list))
	for _, x := range list {
		m[name(x)] = x
	}
	return m
}

func namesOf[T any](list []T, name func(T) string) []string {
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = name(x)
	}
	return out
}

func setOf(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func unionArgs(a, b map[string]*string) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}
