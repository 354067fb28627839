package lang

import (
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/robfig/cron/v3"
	"github.com/zclconf/go-cty/cty"
)

// Schedule is a `schedule "NAME"` block of a flow file: flowctl serve
// starts a run of the flow at the times its cron expression gives.
type Schedule struct {
	Name      string
	NameRange hcl.Range
	DeclRange hcl.Range
	// Cron is the expression as written; Spec its parse.
	Cron      string
	CronRange hcl.Range
	Spec      cron.Schedule
	// Location is the time zone the expression is read in (UTC when no
	// timezone is given).
	Location *time.Location
	// Inputs is the object of the flow's input values; nil for none.
	Inputs hcl.Expression
	// CatchUp: a time missed while no server ran starts one run when the
	// server starts (the default).
	CatchUp bool
}

var scheduleSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "cron", Required: true}, {Name: "timezone"}, {Name: "inputs"}, {Name: "catch_up"},
	},
}

// cronParser reads the five fields of standard cron (minute hour
// day-of-month month day-of-week) and the descriptors @hourly, @daily,
// @weekly, @monthly, @yearly and @every DURATION.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

func decodeScheduleBlock(b *hcl.Block) (*Schedule, hcl.Diagnostics) {
	s := &Schedule{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange, Location: time.UTC, CatchUp: true}
	diags := checkName("schedule", s.Name, s.NameRange)
	content, d := b.Body.Content(scheduleSchema)
	diags = append(diags, d...)
	for _, a := range sortedAttributes(content.Attributes) {
		switch a.Name {
		case "cron":
			s.CronRange = a.Expr.Range()
			s.Cron, d = stringAttr(a)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			spec, err := cronParser.Parse(s.Cron)
			if err != nil {
				diags = append(diags, Error(s.CronRange, "Invalid cron expression",
					"The cron expression %s of schedule %s cannot be read: %s. Write five fields (minute hour day-of-month month day-of-week), such as \"0 7 * * 1-5\", or a descriptor such as \"@daily\" or \"@every 15m\".",
					quote(s.Cron), quote(s.Name), err)...)
				continue
			}
			s.Spec = spec
		case "timezone":
			tz, d := stringAttr(a)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			loc, err := time.LoadLocation(tz)
			if err != nil || tz == "" || tz == "Local" {
				diags = append(diags, Error(a.Expr.Range(), "Unknown time zone",
					"The time zone %s of schedule %s is not known; give an IANA name such as \"Europe/Paris\" or \"UTC\".", quote(tz), quote(s.Name))...)
				continue
			}
			s.Location = loc
		case "inputs":
			s.Inputs = a.Expr
		case "catch_up":
			v, d := a.Expr.Value(nil)
			diags = append(diags, d...)
			if !d.HasErrors() && (v.IsNull() || !v.IsKnown() || v.Type() != cty.Bool) {
				diags = append(diags, Error(a.Expr.Range(), "Invalid catch_up", "catch_up is true or false.")...)
				continue
			}
			if !d.HasErrors() {
				s.CatchUp = v.True()
			}
		}
	}
	return s, diags
}

// Next is the first time after t at which the schedule fires.
func (s *Schedule) Next(t time.Time) time.Time {
	return s.Spec.Next(t.In(s.Location))
}
