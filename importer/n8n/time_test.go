package n8n

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// TestN8NTimeValues evaluates n8n's dates in goja's adapter at a fixed
// instant (2024-02-29T23:45:12.345Z, a leap day) and compares them with
// what n8n 2.8.4 gives for the same expressions at that instant in a
// workflow whose timezone is UTC (its Expression.getParameterValue with
// luxon's Settings.now fixed; the forms are the corpus's, e.g.
// Zie619+n8n-workflows' $now.minus($json.days, 'days').format('yyyy-MM-dd')).
func TestN8NTimeValues(t *testing.T) {
	cases := []struct{ expr, want string }{
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
	}
	vm := goja.New()
	if _, err := vm.RunString(n8nCodeJS + n8nLegacyJS + n8nTimeJS + "\nDate.now = function () { return 1709250312345 }"); err != nil {
		t.Fatal(err)
	}
	execute, _ := goja.AssertFunction(vm.Get("execute"))
	exprs := map[string]any{}
	for i, c := range cases {
		exprs[string(rune('a'+i))] = c.expr
	}
	input := map[string]any{"mode": "expressions", "expressions": exprs, "items": []any{map[string]any{"days": 3}}}
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
	for _, c := range []struct{ src, want string }{
		{strings.Replace(workflow("w", node(`={{ $now.toISO() }}`)), `"settings": {"timezone": "UTC"}`, `"settings": {}`, 1), "here none (n8n's GENERIC_TIMEZONE, America/New_York by default)"},
		{strings.Replace(workflow("w", node(`={{ $now.toISO() }}`)), `"UTC"`, `"Europe/Rome"`, 1), "here Europe/Rome"},
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
