package index

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Port is an input or output of a wanted block: the thinker's decompose
// reply, with its HCL type expressions parsed (lang.ParseType).
type Port struct {
	Name string
	Type cty.Type
}

// Compatible reports whether b can serve as a block with these inputs and
// outputs, and when it cannot, why, in a sentence per problem joined by
// "; " (for example `input "text" is a number, want string`).
//
//   - Every wanted input must be an input of b that accepts the wanted type
//     without a conversion that could fail at run time (a number where a
//     string is wanted is fine, a string where a number is wanted is not).
//     A wanted input is matched by name or, when b has no input of that
//     name, by the one input of b that accepts its type and is not matched
//     to another wanted input.
//   - b's required inputs (those without a default) must all be matched.
//   - Every wanted output must be an output of b whose type converts to
//     the wanted type, matched by name. A block with open outputs (the llm
//     built-in) produces any output a step declares, so only the outputs
//     it has of its own are checked.
//
// Values of type any (cty.DynamicPseudoType) fit every type: their check is
// left to run time, as the compiler does.
func Compatible(b *blocks.Block, inputs, outputs []Port) (ok bool, why string) {
	var problems []string
	matched := map[string]bool{} // b's inputs that serve a wanted input
	var unnamed []Port
	for _, p := range inputs {
		in := b.Input(p.Name)
		if in == nil {
			unnamed = append(unnamed, p)
			continue
		}
		matched[in.Name] = true
		if !accepts(in.Type.Type, p.Type) {
			problems = append(problems, fmt.Sprintf("input %q is %s, want %s", in.Name, describe(in.Type.Type), lang.TypeString(p.Type)))
		}
	}
	for _, p := range unnamed {
		var fits []string
		for _, in := range b.Inputs {
			if !matched[in.Name] && accepts(in.Type.Type, p.Type) {
				fits = append(fits, in.Name)
			}
		}
		switch len(fits) {
		case 1:
			matched[fits[0]] = true
		case 0:
			problems = append(problems, fmt.Sprintf("no input %q, and no other input takes %s", p.Name, lang.TypeString(p.Type)))
		default:
			problems = append(problems, fmt.Sprintf("no input %q, and the inputs %s all take %s", p.Name, quoteList(fits), lang.TypeString(p.Type)))
		}
	}
	for _, in := range b.Inputs {
		if in.Required() && !matched[in.Name] {
			problems = append(problems, fmt.Sprintf("input %q (%s) is required and not among the wanted inputs", in.Name, lang.TypeString(in.Type.Type)))
		}
	}
	for _, p := range outputs {
		out := b.Output(p.Name)
		switch {
		case out == nil && b.OpenOutputs:
			// A step declares it.
		case out == nil:
			problems = append(problems, fmt.Sprintf("no output %q; the outputs are %s", p.Name, quoteList(b.OutputNames())))
		case !convertible(out.Type.Type, p.Type):
			problems = append(problems, fmt.Sprintf("output %q is %s, want %s", out.Name, describe(out.Type.Type), lang.TypeString(p.Type)))
		}
	}
	if len(problems) > 0 {
		return false, strings.Join(problems, "; ")
	}
	return true, ""
}

// accepts reports whether an input of type in takes values of type given.
func accepts(in, given cty.Type) bool { return convertible(given, in) }

// convertible reports whether a value of type from converts to type to
// without a conversion that could fail on some values. Where either type
// has parts of type any, a conversion that may fail is enough: what the
// value holds is known only at run time.
func convertible(from, to cty.Type) bool {
	if from.Equals(to) || convert.GetConversion(from, to) != nil {
		return true
	}
	return (from.HasDynamicTypes() || to.HasDynamicTypes()) && convert.GetConversionUnsafe(from, to) != nil
}

// describe says what a type is, for messages: "a number", "a list(string)",
// "an object({...})", "of any type".
func describe(ty cty.Type) string {
	if ty == cty.DynamicPseudoType {
		return "of any type"
	}
	s := lang.TypeString(ty)
	return lang.Article(s) + " " + s
}

func quoteList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
