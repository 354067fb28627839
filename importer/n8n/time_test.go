package n8n

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// TestN8NTimeValues evaluates n8n's dates in goja's adapter at a fixed
// instant (2024-02-29T23:45:12.345Z, a leap day) and compares them with
// what n8n 2.8.4 gives for the same expressions at that instant in a
// workflow whose timezone is UTC (its Expression.getParameterValue with
// luxon's Settings.now fixed; the forms are the corpus's, e.g.
// Zie619+n8n-workflows' $now.minus($json.days, 'days').format('yyyy-MM-dd')).
func TestN8NTimeValues(t *testing.T) {
	checkTimes(t, 1709250312345, nil, []timeCase{
		{"={{ $now.toISO() }}", "\"2024-02-29T23:45:12.345Z\""},
		{"=a {{ $now }} b", "\"a 2024-02-29T23:45:12.345Z b\""},
		{"={{ $now }}", "\"2024-02-29T23:45:12.345Z\""},
		{"={{ $today.toISO() }}", "\"2024-02-29T00:00:00.000Z\""},
		{"={{ $now.format('yyyy-MM-dd HH:mm:ss SSS') }}", "\"2024-02-29 23:45:12 345\""},
		{"={{ $now.minus($json.days, 'days').toISO() }}", "\"2024-02-26T23:45:12.345Z\""},
		{"={{ $now.plus(1, 'month').toISO() }}", "\"2024-03-29T23:45:12.345Z\""},
		{"={{ $now.plus({years: 1}).toISO() }}", "\"2025-02-28T23:45:12.345Z\""},
		{"={{ $now.minus({ day: 2 }).toISO() }}", "\"2024-02-27T23:45:12.345Z\""},
		{"={{ $now.minus({ \"hour\": 1 }).toISO() }}", "\"2024-02-29T22:45:12.345Z\""},
		{"={{ $today.minus({days: 14}).toISO() }}", "\"2024-02-15T00:00:00.000Z\""},
		{"={{ $now.startOf('week').toISO() }}", "\"2024-02-26T00:00:00.000Z\""},
		{"={{ $now.endOf('month').toISO() }}", "\"2024-02-29T23:59:59.999Z\""},
		{"={{ $now.startOf('quarter').toISO() }}", "\"2024-01-01T00:00:00.000Z\""},
		{"={{ DateTime.now().toFormat('yyyy/MM/dd hh:mm:ss Z ZZ ZZZ z o ooo q qq X x y yy S u uu uuu c E L M d H h m s') }}", "\"2024/02/29 11:45:12 +0 +00:00 +0000 UTC 60 060 1 01 1709250312 1709250312345 2024 24 345 345 34 3 4 4 2 2 29 23 11 45 12\""},
		{"={{ $now.toFormat(\"HH 'hours and' mm 'minutes' ''\") }}", "\"23 hours and 45 minutes '\""},
		{"={{ $now.toUnixInteger() }}", "1709250312"},
		{"={{ $now.toSeconds() }}", "1709250312.345"},
		{"={{ $now.toMillis() }}", "1709250312345"},
		{"={{ \"x\" + $now }}", "\"x1709250312345\""},
		{"={{ $now.toFormat('YYYY-MM-dd') }}", "\"YYYY-02-29\""},
		{"={{ $now.minus(1.5, 'days').toISO() }}", "\"2024-02-28T11:45:12.345Z\""},
		{"={{ $now.plus({months: 1.5, hours: 2}).toISO() }}", "\"2024-04-14T01:45:12.345Z\""},
		{"={{ $now.minus(30, 'mins').toISO() }}", "\"2024-02-29T23:15:12.345Z\""},
		{"={{ $now.weekday }}", "4"},
		{"={{ $now.toUTC().toFormat('yyyy-MM-dd') }}", "\"2024-02-29\""},
		{"={{ DateTime.utc().minus(1, 'days').toISODate() }}", "\"2024-02-28\""},
		{"={{ $now.minus(13, 'months').endOf('year').toISO() }}", "\"2023-12-31T23:59:59.999Z\""},
	})
	// In n8n's default zone, on the night its clocks go forward
	// (2024-03-10T06:30:00Z, 01:30 in New York): the offsets come from
	// Go's time zone database (timeZone).
	n := &n8n{Conv: &importer.Conv{}}
	src, _ := importer.ParseSource("w.json", []byte(`{"settings": {}}`))
	n.Src = src
	zone, why := n.timeZone()
	if why != "" {
		t.Fatal(why)
	}
	checkTimes(t, 1710052200000, zone, []timeCase{
		{"={{ $now.toISO() }}", "\"2024-03-10T01:30:00.000-05:00\""},
		{"=a {{ $now }} b", "\"a 2024-03-10T01:30:00.000-05:00 b\""},
		{"={{ $now }}", "\"2024-03-10T01:30:00.000-05:00\""},
		{"={{ $today.toISO() }}", "\"2024-03-10T00:00:00.000-05:00\""},
		{"={{ $now.format('yyyy-MM-dd HH:mm:ss SSS') }}", "\"2024-03-10 01:30:00 000\""},
		{"={{ $now.minus($json.days, 'days').toISO() }}", "\"2024-03-07T01:30:00.000-05:00\""},
		{"={{ $now.plus(1, 'month').toISO() }}", "\"2024-04-10T01:30:00.000-04:00\""},
		{"={{ $now.plus({years: 1}).toISO() }}", "\"2025-03-10T01:30:00.000-04:00\""},
		{"={{ $now.minus({ day: 2 }).toISO() }}", "\"2024-03-08T01:30:00.000-05:00\""},
		{"={{ $now.minus({ \"hour\": 1 }).toISO() }}", "\"2024-03-10T00:30:00.000-05:00\""},
		{"={{ $today.minus({days: 14}).toISO() }}", "\"2024-02-25T00:00:00.000-05:00\""},
		{"={{ $now.startOf('week').toISO() }}", "\"2024-03-04T00:00:00.000-05:00\""},
		{"={{ $now.endOf('month').toISO() }}", "\"2024-03-31T23:59:59.999-04:00\""},
		{"={{ $now.startOf('quarter').toISO() }}", "\"2024-01-01T00:00:00.000-05:00\""},
		{"={{ $now.toFormat(\"HH 'hours and' mm 'minutes' ''\") }}", "\"01 hours and 30 minutes '\""},
		{"={{ $now.toUnixInteger() }}", "1710052200"},
		{"={{ $now.toSeconds() }}", "1710052200"},
		{"={{ $now.toMillis() }}", "1710052200000"},
		{"={{ \"x\" + $now }}", "\"x1710052200000\""},
		{"={{ $now.toFormat('YYYY-MM-dd') }}", "\"YYYY-03-10\""},
		{"={{ $now.minus(1.5, 'days').toISO() }}", "\"2024-03-08T13:30:00.000-05:00\""},
		{"={{ $now.plus({months: 1.5, hours: 2}).toISO() }}", "\"2024-04-25T03:30:00.000-04:00\""},
		{"={{ $now.minus(30, 'mins').toISO() }}", "\"2024-03-10T01:00:00.000-05:00\""},
		{"={{ $now.minus(13, 'months').endOf('year').toISO() }}", "\"2023-12-31T23:59:59.999-05:00\""},
		{"={{ $now.toFormat('Z ZZ ZZZ') }}", "\"-5 -05:00 -0500\""},
		{"={{ $now.plus({months: 1}).startOf('day').toISO() }}", "\"2024-04-10T00:00:00.000-04:00\""},
	})
}

type timeCase struct{ expr, want string }

func checkTimes(t *testing.T, at int64, zone importer.Expr, cases []timeCase) {
	t.Helper()
	vm := goja.New()
	if _, err := vm.RunString(n8nAdapterJS + fmt.Sprintf("\nDate.now = function () { return %d }", at)); err != nil {
		t.Fatal(err)
	}
	execute, _ := goja.AssertFunction(vm.Get("execute"))
	exprs := map[string]any{}
	for i, c := range cases {
		exprs[string(rune('a'+i))] = c.expr
	}
	input := map[string]any{"mode": "expressions", "expressions": exprs, "items": []any{map[string]any{"days": 3}}}
	if zone != nil {
		e, d := hclsyntax.ParseExpression(zone.Bytes(), "zone", hcl.InitialPos)
		if d.HasErrors() {
			t.Fatal(d)
		}
		zv, d := e.Value(nil)
		if d.HasErrors() {
			t.Fatal(d)
		}
		b, _ := ctyjson.Marshal(zv, zv.Type())
		var z any
		json.Unmarshal(b, &z)
		input["zone"] = z
	}
	v, err := execute(goja.Undefined(), vm.ToValue(input))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := v.Export().(*goja.Promise)
	if !ok || p.State() != goja.PromiseStateFulfilled {
		t.Fatalf("execute: %v", p.Result())
	}
	// The block's outputs leave goja as JSON.stringify writes them.
	out, err := vm.RunString("JSON.stringify")
	if err != nil {
		t.Fatal(err)
	}
	stringify, _ := goja.AssertFunction(out)
	js, err := stringify(goja.Undefined(), p.Result())
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Values map[string]json.RawMessage }
	if err := json.Unmarshal([]byte(js.String()), &got); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if g := string(got.Values[string(rune('a'+i))]); g != c.want {
			t.Errorf("%s = %s, n8n gives %s", strings.TrimPrefix(c.expr, "="), g, c.want)
		}
	}
}

// TestN8NTimeImport: a node of the corpus that reads the time
// (Zie619+n8n-workflows/workflows__Manual__0236_Manual_GoogleSheets_Create_Scheduled.json,
// "Set processed value") imports in a workflow whose timezone is UTC,
// its expression evaluated by goja's adapter; in the default timezone,
// and with a format from the locale, it is refused with the reason.
func TestN8NTimeImport(t *testing.T) {
	node := func(expr string) string {
		return `"name": "Set processed value", "type": "n8n-nodes-base.set", "typeVersion": 1, "parameters": {"values": {"string": [{"name": "Processed", "value": "` + expr + `"}]}, "options": {}}`
	}
	flow := mustValidate(t, workflow("w", node(`={{ $now.toISO() }}`)))
	if !strings.Contains(flow, `"expressions"`) || !strings.Contains(flow, `$now.toISO()`) {
		t.Errorf("the expression is not evaluated by goja:\n%s", flow)
	}
	// In another zone, the step has its offsets; without one, n8n's
	// default, with a warning.
	rome := mustValidate(t, strings.Replace(workflow("w", node(`={{ $now.toISO() }}`)), `"UTC"`, `"Europe/Rome"`, 1))
	if !strings.Contains(rome, `"Europe/Rome"`) {
		t.Errorf("no zone:\n%s", rome)
	}
	res, diags := importWhole(t, strings.Replace(workflow("w", node(`={{ $now.toISO() }}`)), `"settings": {"timezone": "UTC"}`, `"settings": {}`, 1))
	if res == nil || !hasDiag(diags, hcl.DiagWarning, "Dates in America/New_York") || !strings.Contains(flowText(t, res), `"America/New_York"`) {
		t.Errorf("no default zone: %v", diags)
	}
	for _, c := range []struct{ src, want string }{
		{strings.Replace(workflow("w", node(`={{ $now.toISO() }}`)), `"UTC"`, `"Mars/Olympus"`, 1), `"Mars/Olympus", which is not a zone`},
		{workflow("w", node(`={{ $today.format('dd LLL yyyy') }}`)), `the token "LLL" is written in the locale`},
		{workflow("w", node(`={{ $now.toLocaleString() }}`)), "$now.toLocaleString: its text is in the locale"},
		{workflow("w", node(`={{ $now.minus(5).toISO() }}`)), "$now.minus: it is converted with an object of units"},
		{workflow("w", node(`={{ $now.plus({fortnights: 1}).toISO() }}`)), `"fortnights: 1" is not a unit`},
		{workflow("w", node(`={{ $now.toFormat('yyyy-MM-ddTHH') }}`)), `the token "T" is written in the locale`},
		{workflow("w", node(`={{ $now.weekdayLong }}`)), "$now.weekdayLong: flowctl's evaluation of n8n's dates does not have it"},
		{workflow("w", node(`={{ DateTime.fromISO($json.d).toISO() }}`)), "the expression uses DateTime, which"},
	} {
		_, diags := importWhole(t, c.src)
		found := false
		for _, d := range diags {
			if d.Summary == "Unsupported expression" && strings.Contains(d.Detail, c.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("want %q, got %v", c.want, diags)
		}
	}
}
