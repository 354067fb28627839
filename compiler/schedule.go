package compiler

import (
	"fmt"
	"regexp"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// schedules checks that each schedule's inputs resolve: a value for every
// required input, each of its type.
func (c *compilation) schedules() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, s := range c.prog.Schedules {
		_, d := c.prog.ScheduleInputs(s)
		diags = append(diags, d...)
	}
	return diags
}

var missingInputRE = regexp.MustCompile(`^Input "(\w+)" has no default`)

// ScheduleInputs are the input values of the runs a schedule starts: its
// inputs, else the defaults.
func (p *Program) ScheduleInputs(s *lang.Schedule) (map[string]cty.Value, hcl.Diagnostics) {
	given := map[string]InputValue{}
	if s.Inputs != nil {
		v, diags := s.Inputs.Value(&hcl.EvalContext{Functions: lang.Functions(p.Dir)})
		if diags.HasErrors() {
			return nil, diags
		}
		if v.IsNull() || !v.IsWhollyKnown() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
			return nil, lang.Error(s.Inputs.Range(), "Invalid inputs",
				"The inputs of schedule %q are an object of the flow's input values, such as { limit = 10 }.", s.Name)
		}
		for k, iv := range v.AsValueMap() {
			given[k] = InputValue{Value: iv, Source: fmt.Sprintf("schedule %q", s.Name)}
		}
	}
	in, diags := p.ResolveInputs(given)
	// Point at the schedule, which is what to change.
	rng := s.NameRange
	if s.Inputs != nil {
		rng = s.Inputs.Range()
	}
	for _, d := range diags {
		d.Subject = rng.Ptr()
		if m := missingInputRE.FindStringSubmatch(d.Detail); d.Summary == "Missing required input" && m != nil {
			d.Detail = fmt.Sprintf("Input %q has no default, so schedule %q must give it: inputs = { %s = ... }.", m[1], s.Name, m[1])
		}
	}
	return in, diags
}
