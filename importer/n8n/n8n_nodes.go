package n8n

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The n8n nodes that start a flow or move items without computing them:
// Manual Trigger, Schedule Trigger, No Operation, Wait, Limit, Merge, and
// the list nodes the n8n_code block runs (Split Out, Aggregate, Sort).

// manualTrigger is the flow itself: one empty item.
func (n *n8n) manualTrigger(node *n8nNode, _ n8nItems) []n8nItems {
	n.File.Header = append(n.File.Header, fmt.Sprintf("%s starts the flow: one empty item.", n.nodeComment(node)))
	return []n8nItems{{e: importer.Code("[{}]")}}
}

// scheduleTrigger is a schedule block for each rule, and a step giving
// the item n8n's Schedule Trigger gives (the time of the run, in UTC).
func (n *n8n) scheduleTrigger(node *n8nNode, _ n8nItems) []n8nItems {
	tz := n.scheduleTimezone(node, true)
	rules := node.params.Items("rule", "interval")
	if len(rules) == 0 {
		rules = []*importer.JV{{Kind: 'o', Obj: map[string]*importer.JV{}, Ptr: node.params.Ptr + "/rule", Rng: node.params.Rng}}
	}
	for i, r := range rules {
		cron, ok := n.cronOf(node, r)
		if !ok {
			continue
		}
		b := hclwrite.NewBlock("schedule", []string{n.Name("schedule", node.name+fmt.Sprintf(" %d", i+1), "schedule")})
		b.Body().SetAttributeValue("cron", cty.StringVal(cron))
		if tz != "" {
			b.Body().SetAttributeValue("timezone", cty.StringVal(tz))
		}
		n.File.Schedules = append(n.File.Schedules, importer.Decl{Comment: []string{fmt.Sprintf("%s, rule %d", n.nodeComment(node), i+1)}, Block: b})
	}
	b, body := importer.NewStep(node.step, "n8n_code")
	n.code = true
	body.SetAttributeValue("mode", cty.StringVal("scheduleTrigger"))
	body.SetAttributeValue("cache", cty.False)
	n.Step(n.nodeComment(node)+": the item of the run's start", b)
	return []n8nItems{{e: importer.Ref("step", node.step, "items")}}
}

// scheduleTimezone is the timezone of a schedule trigger's rules: the
// workflow's, or UTC (with a warning) when it sets none. itemTimes says
// the trigger's item gives times (in UTC).
func (n *n8n) scheduleTimezone(node *n8nNode, itemTimes bool) string {
	tz := n.Src.Root.Text("settings", "timezone")
	if tz == "" || tz == "DEFAULT" {
		n.Warn(node.where, node.params, "Schedule in UTC",
			"the workflow sets no timezone: n8n reads the schedule in its instance's (GENERIC_TIMEZONE, America/New_York unless set); the flow's schedule and item are in UTC.")
		tz = ""
	} else if tz != "UTC" && tz != "Etc/UTC" && itemTimes {
		n.Warn(node.where, n.Src.Root.Get("settings", "timezone"), "Item times in UTC",
			"the schedule runs in "+tz+", but the trigger's item gives the time in UTC (n8n gives it in "+tz+").")
	}
	return tz
}

// cronOf is the cron expression of a Schedule Trigger rule.
func (n *n8n) cronOf(node *n8nNode, r *importer.JV) (string, bool) {
	num := func(key string, def int) int { return int(r.Number(float64(def), key)) }
	minute, hour := num("triggerAtMinute", 0), num("triggerAtHour", 0)
	switch field := r.Text("field"); field {
	case "cronExpression":
		f := strings.Fields(r.Text("expression"))
		switch {
		case len(f) == 5:
			return strings.Join(f, " "), true
		case len(f) == 6 && f[0] == "0":
			return strings.Join(f[1:], " "), true
		}
		n.Problem(node.where, r.Get("expression"), "Unsupported cron expression",
			"a schedule's cron has five fields (minute to day of week); this one has "+strconv.Itoa(len(f))+" (n8n also reads a first field of seconds, which only \"0\" converts).")
		return "", false
	case "seconds":
		return fmt.Sprintf("@every %ds", num("secondsInterval", 30)), true
	case "minutes":
		return fmt.Sprintf("*/%d * * * *", num("minutesInterval", 5)), true
	case "hours":
		return fmt.Sprintf("%d */%d * * *", minute, num("hoursInterval", 1)), true
	case "", "days":
		if d := num("daysInterval", 1); d != 1 {
			return fmt.Sprintf("%d %d */%d * *", minute, hour, d), true
		}
		return fmt.Sprintf("%d %d * * *", minute, hour), true
	case "weeks":
		var days []string
		for _, d := range r.Items("triggerAtDay") {
			days = append(days, d.Num)
		}
		dow := "*"
		if len(days) > 0 {
			dow = strings.Join(days, ",")
		}
		if w := num("weeksInterval", 1); w != 1 {
			n.Warn(node.where, r, "Weekly schedule", fmt.Sprintf("every %d weeks: a cron schedule runs every week on these days.", w))
		}
		return fmt.Sprintf("%d %d * * %s", minute, hour, dow), true
	case "months":
		return fmt.Sprintf("%d %d %d */%d *", minute, hour, num("triggerAtDayOfMonth", 1), num("monthsInterval", 1)), true
	default:
		n.Problem(node.where, r.Get("field"), "Unsupported schedule", fmt.Sprintf("the interval %q is none of n8n's.", field))
		return "", false
	}
}

// noOpNode passes its items on: a value step, so that the node is in the
// flow for review.
func (n *n8n) noOpNode(node *n8nNode, in n8nItems) []n8nItems {
	b, body := importer.NewStep(node.step, "value")
	body.SetAttributeRaw("value", importer.Clone(in.e))
	n.dependsOn(body, in)
	n.Step(n.nodeComment(node)+": passes its items on", b)
	return []n8nItems{pairedWith(importer.Ref("step", node.step, "value"), in, nil)}
}

// dependsOn adds what the items wait for beyond their references.
func (n *n8n) dependsOn(body *hclwrite.Body, in n8nItems) {
	if len(in.deps) == 0 {
		return
	}
	var deps []importer.Expr
	for _, d := range in.deps {
		deps = append(deps, importer.Ref("step", d))
	}
	body.SetAttributeRaw("depends_on", importer.Clone(importer.Tuple(deps)))
}

// pairedWith are the items e of a node whose input items are in: item i
// pairs with in's item i, or with item paired[i] when paired is set.
func pairedWith(e importer.Expr, in n8nItems, paired importer.Expr) n8nItems {
	p := in
	return n8nItems{e: e, prev: &p, paired: paired}
}

// waitNode sleeps for a time interval and passes its items on; the nodes
// after it wait for the sleep.
func (n *n8n) waitNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	if r := p.Text("resume"); r != "" && r != "timeInterval" {
		n.Problem(node.where, p.Get("resume"), "Unsupported wait",
			fmt.Sprintf("resume %q (a webhook, a form or a date) is not converted; a time interval becomes a sleep.", r))
		return nil
	}
	if a := p.Get("amount"); a != nil && a.Kind != 'n' {
		n.Problem(node.where, a, "Unsupported wait", "the amount is converted when it is a number, not an expression.")
		return nil
	}
	amount := p.Number(1, "amount")
	if node.version < 1.1 && p.Get("amount") == nil {
		amount = 1
	}
	unit := p.Text("unit")
	if unit == "" {
		unit = "hours"
	}
	mult := map[string]float64{"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400}[unit]
	if mult == 0 {
		n.Problem(node.where, p.Get("unit"), "Unsupported wait", fmt.Sprintf("the unit %q is none of seconds, minutes, hours, days.", unit))
		return nil
	}
	ms := int64(amount * mult * 1000)
	b, body := importer.NewStep(node.step, "sleep")
	body.SetAttributeValue("duration", cty.StringVal(importer.Duration(max(ms, 1))))
	// The sleep starts when the items have come.
	n.dependsOn(body, n8nItems{deps: append(append([]string{}, in.from...), in.deps...)})
	what := strings.TrimSuffix(unit, "s")
	if amount != 1 {
		what = unit
	}
	n.Step(n.nodeComment(node)+fmt.Sprintf(": %s %s", strconv.FormatFloat(amount, 'f', -1, 64), what), b)
	deps := append(append([]string{}, in.deps...), node.step)
	out := pairedWith(in.e, in, nil)
	out.deps, out.from = deps, in.from
	return []n8nItems{out}
}

// limitNode keeps the first or the last maxItems items.
func (n *n8n) limitNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	max := p.Get("maxItems")
	var count importer.Expr = importer.Code("1")
	s := n.scope(node, in, false)
	if max != nil {
		count = s.value(max, "maxItems")
	}
	s.flush()
	b, body := importer.NewStep(node.step, "value")
	var out n8nItems
	if p.Text("keep") == "lastItems" {
		body.SetAttributeRaw("value", importer.Clone(importer.Join("slice(", in.e, ", max(length(", in.e, ") - (", count, "), 0), length(", in.e, "))")))
		out = pairedWith(importer.Ref("step", node.step, "value"), in,
			importer.Join("range(max(length(", in.e, ") - (", count, "), 0), length(", in.e, "))"))
	} else {
		body.SetAttributeRaw("value", importer.Clone(importer.Join("slice(", in.e, ", 0, min(", count, ", length(", in.e, ")))")))
		out = pairedWith(importer.Ref("step", node.step, "value"), in, nil)
	}
	n.dependsOn(body, in)
	n.Step(n.nodeComment(node), b)
	return []n8nItems{out}
}

// mergeNode is Merge v2 and v3: append (the items of its inputs, in
// input order), combine by position, combine all (v2's multiplex) and
// choose branch.
func (n *n8n) mergeNode(node *n8nNode, _ n8nItems) []n8nItems {
	p := node.params
	if node.version < 2 {
		return n.mergeV1(node)
	}
	v2 := node.version < 3
	mode, by := p.Text("mode"), p.Text("combineBy")
	if v2 {
		by = p.Text("combinationMode")
		if mode == "combine" && by == "" {
			by = "mergeByFields"
		}
		switch by {
		case "mergeByPosition":
			by = "combineByPosition"
		case "multiplex":
			by = "combineAll"
		}
	} else if mode == "combine" && by == "" {
		by = "combineByFields"
	}
	if mode == "" {
		mode = "append"
	}
	if mode == "combine" && by == "combineByFields" {
		return n.mergeByFields(node)
	}
	byPosition := mode == "combine" && by == "combineByPosition"
	combineAll := mode == "combine" && by == "combineAll"
	if mode != "append" && mode != "chooseBranch" && !byPosition && !combineAll {
		what := mode
		if mode == "combine" {
			what = "combine by " + by
		}
		n.Problem(node.where, p.Get("mode"), "Unsupported merge", fmt.Sprintf("mode %q: flowctl import converts append, combine by position, combine all (multiplex) and choose branch.", what))
		return nil
	}
	if ch := p.Get("options", "clashHandling", "values"); (byPosition || combineAll) && ch != nil && (ch.Text("resolveClash") == "addSuffix" || ch.Boolean(false, "overrideEmpty")) {
		n.Problem(node.where, ch, "Unsupported merge", "combining with a suffix on clashing fields, or with empty values left out, is not converted.")
		return nil
	}
	var branch int // choose branch: the input whose items pass (from 1), 0 for one empty item
	if mode == "chooseBranch" {
		cm := p.Text("chooseBranchMode")
		if cm != "" && cm != "waitForBoth" && cm != "waitForAll" {
			n.Problem(node.where, p.Get("chooseBranchMode"), "Unsupported merge", fmt.Sprintf("choose branch mode %q is not converted: waiting for all inputs is.", cm))
			return nil
		}
		switch out := p.Text("output"); {
		case out == "empty":
		case v2 && out == "input2":
			branch = 2
		case v2:
			branch = 1
		default:
			branch = int(p.Number(1, "useDataOfInput"))
		}
	}
	inputs := int(p.Number(2, "numberInputs"))
	var lists []importer.Expr
	var deps []string
	for i := range max(inputs, len(node.ins)) {
		in, ok := n.inputItems(node, i)
		if !ok {
			return nil
		}
		lists = append(lists, in.e)
		deps = append(deps, in.deps...)
	}
	if mode == "chooseBranch" {
		value := importer.Code("[{}]")
		if branch > 0 {
			if branch > len(lists) {
				n.Problem(node.where, p.Get("useDataOfInput"), "Unsupported merge", fmt.Sprintf("input %d does not exist: the node has %d inputs (n8n fails on it too).", branch, len(lists)))
				return nil
			}
			value = lists[branch-1]
		}
		b, body := importer.NewStep(node.step, "value")
		body.SetAttributeRaw("value", importer.Clone(value))
		n.dependsOn(body, n8nItems{deps: deps})
		n.Step(n.nodeComment(node)+": the items of the branch it chooses, once all its inputs have come", b)
		return []n8nItems{{e: importer.Ref("step", node.step, "value")}}
	}
	if byPosition || combineAll {
		// n8n merges the json of the items at each position (lodash's
		// merge, the preferred input last): the adapter does as it does.
		n.code = true
		b, body := importer.NewStep(node.step, "n8n_code")
		what := "the items of its inputs combined by position"
		if combineAll {
			body.SetAttributeValue("mode", cty.StringVal("combineAll"))
			what = "every combination of an item of each input, merged"
		} else {
			body.SetAttributeValue("mode", cty.StringVal("combineByPosition"))
		}
		opts := node.params.Get("options")
		var optsExpr importer.Expr = importer.Code("{}")
		if opts != nil {
			optsExpr = importer.JsonLiteral(opts)
		}
		members := []importer.Member{{Name: "inputs", Value: importer.Tuple(lists)}, {Name: "options", Value: optsExpr}}
		if v2 && byPosition {
			// Merge v2 passes the items of both inputs when one has none.
			members = append(members, importer.Member{Name: "empty_passes", Value: importer.Code("true")})
		}
		body.SetAttributeRaw("params", importer.Clone(importer.Object(members)))
		n.dependsOn(body, n8nItems{deps: deps})
		n.Step(n.nodeComment(node)+": "+what, b)
		out := n8nItems{e: importer.Ref("step", node.step, "items")}
		if byPosition && !v2 && !node.params.Boolean(false, "options", "includeUnpaired") {
			out = n.mergePaired(node, out, false)
		}
		return []n8nItems{out}
	}
	b, body := importer.NewStep(node.step, "value")
	body.SetAttributeRaw("value", importer.Clone(importer.Call("concat", lists...)))
	n.dependsOn(body, n8nItems{deps: deps})
	n.Step(n.nodeComment(node)+": the items of its inputs, one after the other", b)
	return []n8nItems{n.mergePaired(node, n8nItems{e: importer.Ref("step", node.step, "value")}, true)}
}

// listNode is a node the n8n_code block runs over all its items, with its
// parameters as n8n gives them.
func (n *n8n) listNode(node *n8nNode, in n8nItems, mode string, what string) []n8nItems {
	n.code = true
	b, body := importer.NewStep(node.step, "n8n_code")
	body.SetAttributeValue("mode", cty.StringVal(mode))
	body.SetAttributeRaw("items", importer.Clone(in.e))
	body.SetAttributeRaw("params", importer.Clone(importer.JsonLiteral(node.params)))
	n.dependsOn(body, in)
	n.Step(n.nodeComment(node)+": "+what, b)
	return []n8nItems{{e: importer.Ref("step", node.step, "items")}}
}

func (n *n8n) splitOutNode(node *n8nNode, in n8nItems) []n8nItems {
	if n.expressionParams(node) {
		return nil
	}
	return n.perItemListNode(node, in, "splitOut", importer.JsonLiteral(node.params), "an item for each element of "+strconv.Quote(node.params.Text("fieldToSplitOut")))
}

func (n *n8n) aggregateNode(node *n8nNode, in n8nItems) []n8nItems {
	if n.expressionParams(node) {
		return nil
	}
	return aggregatePairs(node, in, n.listNode(node, in, "aggregate", "one item of lists"))
}

func (n *n8n) sortNode(node *n8nNode, in n8nItems) []n8nItems {
	if n.expressionParams(node) {
		return nil
	}
	if p := node.params; p.Text("type") == "code" && !n.checkCode(node, p.Get("code"), p.Text("code"), sortWrap) {
		return nil
	}
	return n.listNode(node, in, "sort", "the items in order")
}

// expressionParams reports (as a problem) a list node parameter that is
// an expression: those nodes read their parameters once, from item 0,
// and the flow passes them as they are written.
func (n *n8n) expressionParams(node *n8nNode) bool {
	var found *importer.JV
	var walk func(v *importer.JV)
	walk = func(v *importer.JV) {
		switch v.Kind {
		case 's':
			if strings.HasPrefix(v.Str, "=") && found == nil && !(node.typ == "sort" && v.Ptr == node.params.Ptr+"/code") {
				found = v
			}
		case 'o':
			for _, k := range v.Keys {
				walk(v.Obj[k])
			}
		case 'a':
			for _, e := range v.Arr {
				walk(e)
			}
		}
	}
	walk(node.params)
	if found != nil {
		n.Problem(node.where, found, "Unsupported expression",
			"flowctl import converts this node's parameters as literals; write the value instead of an expression.")
		return true
	}
	return false
}

// executeWorkflowTrigger starts a sub-workflow: its items are what the
// calling workflow passes, the flow's input items (one empty item when
// the flow runs alone, as n8n's trigger gives when run by hand).
func (n *n8n) executeWorkflowTrigger(node *n8nNode, _ n8nItems) []n8nItems {
	b := hclwrite.NewBlock("input", []string{n.Name("input", "items", "items")})
	b.Body().SetAttributeRaw("type", importer.Clone(importer.Code("list(any)")))
	b.Body().SetAttributeRaw("default", importer.Clone(importer.Code("[{}]")))
	b.Body().SetAttributeValue("description", cty.StringVal(fmt.Sprintf("The items n8n node %q gives: the json of the items the calling workflow passes", node.name)))
	n.File.Inputs = append(n.File.Inputs, importer.Decl{Block: b})
	n.File.Header = append(n.File.Header, fmt.Sprintf("%s starts the flow: its items are the input items, as a calling flow passes them.", n.nodeComment(node)))
	fields, ok := n.callFields(node)
	if !ok {
		return nil
	}
	if fields == nil {
		return []n8nItems{{e: importer.Ref("input", "items")}}
	}
	// v1.1 with declared inputs: each item has those fields (null where
	// the caller gives none) and no others.
	var names []importer.Expr
	var members []importer.Member
	for _, f := range fields {
		members = append(members, importer.Member{Name: f, Value: importer.Code("null")})
		names = append(names, importer.Str(f))
	}
	items := importer.Join("[for it in input.items : merge(", importer.Object(members), ", { for k, v in it : k => v if contains(", importer.Tuple(names), ", k) })]")
	local := n.Name("local", node.name, "items")
	n.File.Locals = append(n.File.Locals, local2(
		fmt.Sprintf("The items of n8n node %q: its declared inputs of each item the caller passes (null where it gives none), and no other field.", node.name),
		local, items))
	return []n8nItems{pairedWith(importer.Ref("local", local), n8nItems{e: importer.Ref("input", "items")}, nil)}
}

// callFields are the input fields an Execute Workflow Trigger v1.1
// declares (Define using fields below, or using a JSON example: the
// example's keys), or nil when it takes the items as they come (Accept
// all data, and v1).
func (n *n8n) callFields(node *n8nNode) ([]string, bool) {
	p := node.params
	source := p.Text("inputSource")
	if node.version < 1.1 || source == "passthrough" {
		return nil, true
	}
	fields := []string{}
	switch source {
	case "", "workflowInputs":
		for _, v := range p.Items("workflowInputs", "values") {
			if name := v.Text("name"); name != "" {
				fields = append(fields, name)
			}
		}
	case "jsonExample":
		ex := p.Get("jsonExample")
		if ex == nil || ex.Kind != 's' || strings.HasPrefix(ex.Str, "=") {
			n.Problem(node.where, p, "Unsupported parameter", "the JSON example of the inputs is converted when it is written out.")
			return nil, false
		}
		src, d := importer.ParseSource(n.Src.Name, []byte(ex.Str))
		if src == nil || d.HasErrors() || src.Root.Kind != 'o' {
			n.Problem(node.where, ex, "Invalid JSON example", "the JSON example of the inputs is not a JSON object; n8n fails the trigger on it too.")
			return nil, false
		}
		fields = append(fields, src.Root.Keys...)
	default:
		n.Problem(node.where, p.Get("inputSource"), "Unsupported parameter", fmt.Sprintf("input data mode %q is not converted.", source))
		return nil, false
	}
	return fields, true
}
