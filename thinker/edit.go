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
	"tools", "max_tool_calls", "tool_inputs", "provider"}

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
		case blk.Type == "secret" && len(blk.Labels) == 1:
			b.wire.Secrets = append(b.wire.Secrets, wireSecret{Name: blk.Labels[0], Description: literal(attrs, "description")})
		case blk.Type == "memory" && len(blk.Labels) == 1:
			m := wireMemory{Name: blk.Labels[0], Description: literal(attrs, "description")}
			if a, ok := attrs["type"]; ok {
				m.Type = text(a.Expr)
			}
			m.Default, m.Value = exprText(attrs, "default", text), exprText(attrs, "value", text)
			b.wire.Memory = append(b.wire.Memory, m)
		case blk.Type == "schedule" && len(blk.Labels) == 1:
			sc := wireSchedule{Name: blk.Labels[0], Cron: literal(attrs, "cron"), Inputs: exprText(attrs, "inputs", text)}
			if tz := literal(attrs, "timezone"); tz != "" {
				sc.Timezone = &tz
			}
			b.wire.Schedules = append(b.wire.Schedules, sc)
		case blk.Type == "step" && len(blk.Labels) == 1:
			s := wireStep{Name: blk.Labels[0], Use: literal(attrs, "use"), Args: map[string]*string{}}
			readStepMeta(&s, blk.Body, literal)
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

// exprText is the source text of an attribute's expression; nil when the
// attribute is not there.
func exprText(attrs hclsyntax.Attributes, name string, text func(hclsyntax.Expression) string) *string {
	a, ok := attrs[name]
	if !ok {
		return nil
	}
	t := text(a.Expr)
	return &t
}

// applyEdit writes a wire reply into the flow being edited: blocks added,
// changed in place (only what differs) or removed, and everything the
// reply does not describe — comments, locals, inline blocks, a step's
// cache — kept as it was (keepUnsaid fills in what a reply left out).
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
	editParts(root, "input", base.wire.Inputs, r.Inputs, func(in wireInput) string { return in.Name },
		func(a, b wireInput) bool { return reflect.DeepEqual(inputKey(a), inputKey(b)) },
		func(b *hclwrite.Body, in wireInput, _ *wireInput) { w.input(b, in) })
	editParts(root, "secret", base.wire.Secrets, r.Secrets, func(s wireSecret) string { return s.Name },
		func(a, b wireSecret) bool { return a == b }, func(b *hclwrite.Body, s wireSecret, _ *wireSecret) { w.secret(b, s) })
	editParts(root, "memory", base.wire.Memory, r.Memory, func(m wireMemory) string { return m.Name }, sameMemory,
		func(b *hclwrite.Body, m wireMemory, _ *wireMemory) { w.memory(b, m) })
	editParts(root, "step", base.wire.Steps, r.Steps, func(s wireStep) string { return s.Name },
		func(a, b wireStep) bool { return false }, // w.step writes only what differs
		w.step)
	editParts(root, "output", base.wire.Outputs, r.Outputs, func(o wireOutput) string { return o.Name },
		func(a, b wireOutput) bool { return sameExpr(a.Value, b.Value) }, func(b *hclwrite.Body, o wireOutput, _ *wireOutput) { w.output(b, o) })
	editParts(root, "schedule", base.wire.Schedules, r.Schedules, func(s wireSchedule) string { return s.Name }, sameSchedule,
		func(b *hclwrite.Body, s wireSchedule, _ *wireSchedule) { w.schedule(b, s) })
	return hclwrite.Format(f.Bytes()), w.fixes, w.diags
}

// editParts applies the parts of one kind (input, step, …) of a reply to
// the flow file's root body: a part the reply adds is appended, one it
// changes (same tells) is written in place with write (given the old
// version), one it leaves out is removed.
func editParts[T any](root *hclwrite.Body, kind string, old, now []T, name func(T) string, same func(a, b T) bool,
	write func(b *hclwrite.Body, now T, old *T)) {
	before := byName(old, name)
	for _, x := range now {
		o, ok := before[name(x)]
		switch {
		case !ok:
			root.AppendNewline()
			write(root.AppendNewBlock(kind, []string{name(x)}).Body(), x, nil)
		case !same(o, x):
			if blk := root.FirstMatchingBlock(kind, []string{name(x)}); blk != nil {
				write(blk.Body(), x, &o)
			}
		}
	}
	keep := setOf(namesOf(now, name))
	for _, x := range old {
		if !keep[name(x)] {
			if blk := root.FirstMatchingBlock(kind, []string{name(x)}); blk != nil {
				root.RemoveBlock(blk)
			}
		}
	}
}

func sameMemory(a, b wireMemory) bool {
	return a.Name == b.Name && strings.Join(strings.Fields(a.Type), "") == strings.Join(strings.Fields(b.Type), "") &&
		sameExprPtr(a.Default, b.Default) && sameExprPtr(a.Value, b.Value) && a.Description == b.Description
}

func sameSchedule(a, b wireSchedule) bool {
	return a.Name == b.Name && a.Cron == b.Cron && sameStringPtr(a.Timezone, b.Timezone) && sameExprPtr(a.Inputs, b.Inputs)
}

func sameExprPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return sameExpr(*a, *b)
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

// changeOf compares the flow before and after an edit.
func changeOf(old, r *wireReply) Change {
	c := Change{Added: []string{}, Changed: []string{}, Removed: []string{}}
	if old.Description != r.Description {
		c.Changed = append(c.Changed, "flow "+r.Name+": description")
	}
	changeParts(&c, "input", old.Inputs, r.Inputs, func(in wireInput) string { return in.Name }, nil,
		func(a, b wireInput) []string { return whenDiffer(!reflect.DeepEqual(inputKey(a), inputKey(b))) })
	changeParts(&c, "secret", old.Secrets, r.Secrets, func(s wireSecret) string { return s.Name }, nil,
		func(a, b wireSecret) []string { return whenDiffer(a != b) })
	changeParts(&c, "memory", old.Memory, r.Memory, func(m wireMemory) string { return m.Name }, nil,
		func(a, b wireMemory) []string { return whenDiffer(!sameMemory(a, b)) })
	changeParts(&c, "step", old.Steps, r.Steps, func(s wireStep) string { return s.Name },
		func(s wireStep) string { return fmt.Sprintf("step %s (%s)", s.Name, s.Use) },
		func(o, s wireStep) []string {
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
			return append(what, stepMetaChanges(o, s)...)
		})
	changeParts(&c, "output", old.Outputs, r.Outputs, func(o wireOutput) string { return o.Name }, nil,
		func(a, b wireOutput) []string { return whenDiffer(!sameExpr(a.Value, b.Value)) })
	changeParts(&c, "schedule", old.Schedules, r.Schedules, func(s wireSchedule) string { return s.Name }, nil,
		func(a, b wireSchedule) []string { return whenDiffer(!sameSchedule(a, b)) })
	return c
}

// changeParts adds the parts of one kind that an edit adds, changes and
// removes to c: added as "KIND NAME" (or as added says), changed with
// what changed in it when diff names it ("step read: path").
func changeParts[T any](c *Change, kind string, old, now []T, name func(T) string, added func(T) string, diff func(a, b T) []string) {
	before := byName(old, name)
	for _, x := range now {
		o, ok := before[name(x)]
		switch {
		case !ok && added != nil:
			c.Added = append(c.Added, added(x))
		case !ok:
			c.Added = append(c.Added, kind+" "+name(x))
		default:
			what := diff(o, x)
			switch {
			case len(what) == 0:
			case what[0] == "":
				c.Changed = append(c.Changed, kind+" "+name(x))
			default:
				c.Changed = append(c.Changed, kind+" "+name(x)+": "+strings.Join(what, ", "))
			}
		}
	}
	keep := setOf(namesOf(now, name))
	for _, x := range old {
		if !keep[name(x)] {
			c.Removed = append(c.Removed, kind+" "+name(x))
		}
	}
}

// whenDiffer is a diff that says only that a part changed.
func whenDiffer(changed bool) []string {
	if changed {
		return []string{""}
	}
	return nil
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
