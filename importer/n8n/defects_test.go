package n8n

import (
	"fmt"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2"
)

// The defects import had on real workflows (issue 55): each test fails
// without its fix.

// workflow is an n8n workflow of nodes (JSON objects without their
// braces) connected in a chain, the first node a Manual Trigger unless
// the first given is a trigger itself.
func workflow(name string, nodes ...string) string {
	var ns, conns []string
	prev := ""
	if !strings.Contains(nodes[0], "Trigger") {
		nodes = append([]string{`"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}`}, nodes...)
	}
	for _, n := range nodes {
		ns = append(ns, "{"+n+"}")
		nm := strings.SplitN(strings.SplitN(n, `"name": "`, 2)[1], `"`, 2)[0]
		if prev != "" {
			conns = append(conns, `"`+prev+`": {"main": [[{"node": "`+nm+`", "type": "main", "index": 0}]]}`)
		}
		prev = nm
	}
	head := ""
	if name != "" {
		head = `"name": "` + name + `", `
	}
	return `{` + head + `"nodes": [` + strings.Join(ns, ", ") + `], "connections": {` + strings.Join(conns, ", ") + `}, "settings": {"timezone": "UTC"}}`
}

func importWhole(t *testing.T, src string) (*importer.Result, hcl.Diagnostics) {
	t.Helper()
	return importer.Import([]importer.File{{Name: "w.json", Bytes: []byte(src)}}, importer.Options{})
}

// flowText is the text of the flow a result holds.
func flowText(t *testing.T, res *importer.Result) string {
	t.Helper()
	for _, f := range res.Files {
		if strings.HasSuffix(f.Name, ".flow.hcl") {
			return string(f.Bytes)
		}
	}
	t.Fatalf("no flow in %v", res.Files)
	return ""
}

// mustValidate imports src whole and checks that the flow validates.
func mustValidate(t *testing.T, src string) string {
	t.Helper()
	res, diags := importWhole(t, src)
	if res == nil {
		t.Fatalf("import failed: %v", diags)
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatalf("the flow does not validate: %v\n%s", d, flowText(t, res))
	}
	return flowText(t, res)
}

const (
	setData = `"name": "Data", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "q", "value": "x", "type": "string"}]}}`
	getList = `"name": "List", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "http://127.0.0.1:1/list"}`
)

// Item 1: $('Node').item is n8n's paired item — through an HTTP Request
// whose answer is a list, every element's is the item its request was
// for — and where the flow cannot follow it, an error at its JSON path
// (never null, never an item by position).
func TestPairedItemReference(t *testing.T) {
	flow := mustValidate(t, workflow("w", setData, getList,
		`"name": "Out", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "q", "value": "={{ $('Data').item.json.q }}", "type": "string"}]}}`))
	// The Data item of each List item is the one its request was for.
	if !strings.Contains(flow, "(step.data[*].value)[flatten([for k, r in step.list :") {
		t.Errorf("$('Data').item does not follow the requests' items:\n%s", flow)
	}

	// Through an Aggregate of some fields (whose one item pairs with the
	// items those fields leave in), the flow cannot follow it: an error at
	// the expression's JSON path.
	_, diags := importWhole(t, workflow("w", setData, getList,
		`"name": "Agg", "type": "n8n-nodes-base.aggregate", "typeVersion": 1, "parameters": {"aggregate": "aggregateAllItemData", "fieldsToInclude": "v"}`,
		`"name": "Out", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "q", "value": "={{ $('List').item.json.v }}", "type": "string"}]}}`))
	found := false
	for _, d := range diags {
		o, _ := d.Extra.(importer.Origin)
		if d.Summary == "Paired item not followed" {
			found = true
			if d.Severity != hcl.DiagError || o.Path != "/nodes/4/parameters/assignments/assignments/0/value" {
				t.Errorf("%v at %q, want an error at the expression", d.Severity, o.Path)
			}
		}
	}
	if !found {
		t.Errorf("no Paired item not followed error: %v", diags)
	}
}

// Item 1: $node["Node"].json.x in Edit Fields is that node's item at the
// current index, an error when there is none (n8n's), not null.
func TestNodeReferenceInEditFields(t *testing.T) {
	flow := mustValidate(t, workflow("w", setData, getList,
		`"name": "Out", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "q", "value": "={{ $node[\"Data\"].json.q }}", "type": "string"}]}}`))
	if want := "tostring([for it in [(step.data[*].value)[each.key]] : try(it.q, null)][0])"; !strings.Contains(flow, want) {
		t.Errorf("want %s in:\n%s", want, flow)
	}
}

// Item 2: the same references as an HTTP query parameter or header give
// a flow that validates.
func TestPairedItemInHTTPQuery(t *testing.T) {
	mustValidate(t, workflow("w", setData,
		`"name": "Search", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "http://127.0.0.1:1/s", "sendQuery": true, "queryParameters": {"parameters": [{"name": "q", "value": "={{ $('Data').item.json.q }}"}]}, "sendHeaders": true, "headerParameters": {"parameters": [{"name": "X-Q", "value": "={{ $node['Data'].json.q }}"}]}}`))
}

// Item 3: a Schedule Trigger with Header Auth or Query Auth imports whole
// and validates (the header's name is a secret, which a scheduled run
// has, not an input it cannot be given).
func TestScheduleWithHeaderAuth(t *testing.T) {
	for _, kind := range []string{"httpHeaderAuth", "httpQueryAuth"} {
		flow := mustValidate(t, workflow("w",
			`"name": "Schedule Trigger", "type": "n8n-nodes-base.scheduleTrigger", "typeVersion": 1.2, "parameters": {"rule": {"interval": [{"field": "hours"}]}}`,
			`"name": "Get", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "http://127.0.0.1:1/x", "authentication": "genericCredentialType", "genericAuthType": "`+kind+`"}, "credentials": {"`+kind+`": {"id": "c1", "name": "Key"}}`))
		if !strings.Contains(flow, `secret "key_name"`) || strings.Contains(flow, "input \"") {
			t.Errorf("%s: want the name as a secret, no input:\n%s", kind, flow)
		}
	}
}

// Item 4: an HTTP Request without a URL is a diagnostic on that node.
func TestHTTPRequestWithoutURL(t *testing.T) {
	res, diags := importWhole(t, workflow("w", `"name": "Get", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"method": "GET"}`))
	if res != nil || len(diags) != 1 || diags[0].Summary != "No URL" || diags[0].Extra.(importer.Origin).Node != "Get" {
		t.Fatalf("got %v", diags)
	}
	res, _ = importer.Import([]importer.File{{Name: "w.json", Bytes: []byte(workflow("w", `"name": "Get", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": ""}`))}}, importer.Options{Partial: true})
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Errorf("--partial: %v", d)
	}
}

// Item 5: with --partial each file stands alone: one that cannot be
// converted at all keeps its errors, and the others are written.
func TestPartialFilesStandAlone(t *testing.T) {
	files := []importer.File{
		{Name: "good.json", Bytes: []byte(workflow("good", setData))},
		{Name: "bad.json", Bytes: []byte(`{"name": "bad", "nodes": [`)},
		{Name: "lone.json", Bytes: []byte(`{"name": "lone", "nodes": [{"name": "A", "type": "n8n-nodes-base.noOp", "parameters": {}}, {"name": "B", "type": "n8n-nodes-base.noOp", "parameters": {}}], "connections": {}}`)}, // two starts: no one node n8n starts at

	}
	res, diags := importer.Import(files, importer.Options{Partial: true})
	if res == nil || len(res.Files) != 1 || res.Files[0].Name != "good.flow.hcl" {
		t.Fatalf("want good.flow.hcl written, got %v: %v", res, diags)
	}
	var errs []string
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			errs = append(errs, d.Summary)
		}
	}
	if strings.Join(errs, ", ") != "Invalid JSON, No trigger" {
		t.Errorf("errors %v, want the two files' own", errs)
	}
	if res, _ := importer.Import(files, importer.Options{}); res != nil {
		t.Errorf("without --partial something was written")
	}
}

// Item 6: one credential used by several nodes is one set of secrets.
func TestOneCredentialOneSecret(t *testing.T) {
	get := func(name string) string {
		return `"name": "` + name + `", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "http://127.0.0.1:1/x", "authentication": "genericCredentialType", "genericAuthType": "httpBearerAuth"}, "credentials": {"httpBearerAuth": {"id": "c1", "name": "Maps key"}}`
	}
	res, diags := importWhole(t, workflow("w", get("A"), get("B"), get("C")))
	if res == nil {
		t.Fatal(diags)
	}
	if len(res.Secrets) != 1 || res.Secrets[0].Name != "maps_key" {
		t.Errorf("secrets %v, want maps_key alone", res.Secrets)
	}
}

// Item 7: JSON that n8n reads: a name given twice takes the last value, a
// lone surrogate escape is U+FFFD.
func TestJSONAsN8NReadsIt(t *testing.T) {
	src := strings.Replace(workflow("w", setData), `"name": "q", "value": "x"`, `"name": "q", "value": "x\udc80", "value": "y\udc80"`, 1)
	flow := mustValidate(t, src)
	if !strings.Contains(flow, "q = \"y\uFFFD\"") {
		t.Errorf("want the last value, with U+FFFD:\n%s", flow)
	}
}

// Item 8: workflows without a name are named after their file, so that
// a batch of them does not clash.
func TestUnnamedWorkflowsNamedAfterFiles(t *testing.T) {
	res, diags := importer.Import([]importer.File{
		{Name: "dir/Daily Report.json", Bytes: []byte(workflow("", setData))},
		{Name: "other.json", Bytes: []byte(workflow("", setData))},
	}, importer.Options{})
	if res == nil {
		t.Fatal(diags)
	}
	var names []string
	for _, f := range res.Files {
		names = append(names, f.Name)
	}
	if strings.Join(names, " ") != "daily_report.flow.hcl other.flow.hcl" {
		t.Errorf("wrote %v", names)
	}
}

// Item 9: --partial's stand-in for a node it cannot convert keeps the
// node's input items, so replacing it is the only edit needed.
func TestStandInKeepsItsInputs(t *testing.T) {
	res, diags := importer.Import([]importer.File{{Name: "w.json", Bytes: []byte(workflow("w", setData,
		`"name": "Sheet", "type": "n8n-nodes-base.googleSheets", "typeVersion": 4, "parameters": {}`))}}, importer.Options{Partial: true})
	if res == nil {
		t.Fatal(diags)
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatal(d)
	}
	flow := flowText(t, res)
	if !strings.Contains(flow, "inputs  = step.data[*].value") {
		t.Errorf("the stand-in does not take Data's items:\n%s", flow)
	}
}

// Stop and Error: a step that fails with the node's message when items
// come to it (and does not run when none do).
func TestStopAndError(t *testing.T) {
	flow := mustValidate(t, workflow("w", setData,
		`"name": "Stop", "type": "n8n-nodes-base.stopAndError", "typeVersion": 1, "parameters": {"errorMessage": "=bad {{ $json.q }}"}`))
	flat := strings.Join(strings.Fields(flow), " ")
	for _, want := range []string{`mode = "stopAndError"`, "when = length(step.data[*].value) > 0", `message = "bad ${coalesce(try((step.data[*].value)[0].q, null), "")}"`} {
		if !strings.Contains(flat, want) {
			t.Errorf("want %s in:\n%s", want, flow)
		}
	}
	if !strings.Contains(n8nCodeJS, "case 'stopAndError':") {
		t.Error("the adapter has no stopAndError mode")
	}
}

// A loop whose nodes take all the items of a batch at once stays a
// diagnostic with the reason.
func TestLoopNotOnePass(t *testing.T) {
	src := `{"name": "w", "nodes": [
	  {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "parameters": {}},
	  {"name": "Loop", "type": "n8n-nodes-base.splitInBatches", "typeVersion": 3, "parameters": {}},
	  {"name": "Agg", "type": "n8n-nodes-base.aggregate", "typeVersion": 1, "parameters": {"aggregate": "aggregateAllItemData"}}],
	  "connections": {"Start": {"main": [[{"node": "Loop"}]]}, "Loop": {"main": [[], [{"node": "Agg"}]]}, "Agg": {"main": [[{"node": "Loop"}]]}}}`
	_, diags := importWhole(t, src)
	if len(diags) == 0 || diags[0].Summary != "Unsupported loop" || !strings.Contains(diags[0].Detail, `node "Agg" (aggregate) takes all the items of a batch at once`) {
		t.Errorf("got %v", diags)
	}
}

// Execute Workflow Trigger: a sub-workflow's items are the flow's input
// items (one empty item when it runs alone).
func TestExecuteWorkflowTrigger(t *testing.T) {
	flow := mustValidate(t, workflow("sub",
		`"name": "When called", "type": "n8n-nodes-base.executeWorkflowTrigger", "typeVersion": 1.1, "parameters": {"inputSource": "passthrough"}`,
		`"name": "Out", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "1", "name": "q", "value": "={{ $json.q }}", "type": "string"}]}}`))
	flat := strings.Join(strings.Fields(flow), " ")
	for _, want := range []string{`input "items" { type = list(any) default = [{}]`, "for_each = input.items"} {
		if !strings.Contains(flat, want) {
			t.Errorf("want %s in:\n%s", want, flow)
		}
	}
}

// Postgres Execute Query: an sql step for each item, the credential a
// secret URL (one for the credential), Query Parameters as n8n reads them.
func TestPostgresExecuteQuery(t *testing.T) {
	pg := func(name, query, repl string) string {
		return `"name": "` + name + `", "type": "n8n-nodes-base.postgres", "typeVersion": 2.5, "parameters": {"operation": "executeQuery", "query": "` + query + `", "options": {"queryReplacement": "` + repl + `"}}, "credentials": {"postgres": {"id": "p1", "name": "Orders DB"}}`
	}
	res, diags := importWhole(t, workflow("w", setData, pg("Find", "SELECT * FROM orders WHERE q = $1", "={{ $json.q }}"), pg("Mark", "UPDATE orders SET seen = true WHERE id = $1 AND k = $2", "1, two")))
	if res == nil {
		t.Fatal(diags)
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatal(d)
	}
	flow := strings.Join(strings.Fields(flowText(t, res)), " ")
	for _, want := range []string{
		`use = "sql" for_each = step.data[*].value url = secret.orders_db query = "SELECT * FROM orders WHERE q = $1"`,
		`params = flatten([can(jsondecode((each.value.q == null ? "null" : try(tostring(each.value.q), jsonencode(each.value.q)))))`,
		`params = [for v in split(",", "1, two") : trimspace(v) if trimspace(v) != ""]`,
		`find = length(flatten(step.find[*].rows)) > 0 ? flatten(step.find[*].rows) : []`,
		`mark = length(flatten(step.mark[*].rows)) > 0 ? flatten(step.mark[*].rows) : [{ success = true }]`,
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("want %s in:\n%s", want, flow)
		}
	}
	if len(res.Secrets) != 1 {
		t.Errorf("secrets %v, want the credential's one", res.Secrets)
	}
	// A query that is not an expression but holds {{ }} parts: n8n
	// splices them in with String.replace (importer/testdata/real/
	// enescingoz+awesome-n8n-templates/WordPress__WordPress_-_AI_Chatbot_
	// to_enhance_user_experience_-_with_Supabase_and_OpenAI.json writes
	// "… = {{ $json.id }};"); it was kept as text.
	_, diags = importWhole(t, workflow("w", setData, pg("Find", "SELECT * FROM orders WHERE q = '{{ $json.q }}'", "")))
	if !strings.Contains(diags.Error(), "Unsupported query") {
		t.Errorf("a plain query with {{ }}: want Unsupported query, got %v", diags)
	}
}

// TestDuplicateNode: a node given twice, the same but for its position
// (importer/testdata/real/oxbshw+ultimate-n8n-ai-workflows/workflows__data-
// integration__1122-database-alerts-with-notion-and-signl4__workflow.json
// holds its Function node twice), is one node with a warning; two nodes of
// one name that differ stay an error.
func TestDuplicateNode(t *testing.T) {
	set := `"name": "Set", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "position": [%d, 0], "parameters": {"assignments": {"assignments": [{"id": "a", "name": "x", "type": "number", "value": %d}]}}`
	src := workflow("dup", fmt.Sprintf(set, 200, 1))
	src = strings.Replace(src, `"nodes": [`, `"nodes": [{`+fmt.Sprintf(set, 400, 1)+`}, `, 1)
	text := mustValidate(t, src)
	if !strings.Contains(text, "x = 1") {
		t.Errorf("the flow lacks the node's field:\n%s", text)
	}
	res, diags := importWhole(t, src)
	if res == nil || !strings.Contains(diags.Error(), "Duplicate node") {
		t.Errorf("want a Duplicate node warning, got %v", diags)
	}
	differ := workflow("dup", fmt.Sprintf(set, 200, 1))
	differ = strings.Replace(differ, `"nodes": [`, `"nodes": [{`+fmt.Sprintf(set, 400, 2)+`}, `, 1)
	if _, diags := importWhole(t, differ); !strings.Contains(diags.Error(), "Invalid node name") {
		t.Errorf("two different nodes of one name: want Invalid node name, got %v", diags)
	}
}

// TestUnknownDollarNames: an expression using a $ name the adapter does not
// give ($credentials in importer/testdata/real/enescingoz+awesome-n8n-
// templates/AI_Research_RAG_and_Data_Analysis__Open_Deep_Research_-_AI-
// Powered_Autonomous_Research_Workflow.json; $binary, which the adapter
// gave as {}) is an import error at its path, not a step that fails or
// reads undefined; the same names in a string literal or after a dot are
// not names of n8n's.
func TestUnknownDollarNames(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"={{ $credentials.SerpAPI.key }}", "$credentials"},
		{"={{ $binary.data.mimeType }}", "$binary"},
		{"=a {{ $json.x }} b {{ $parameter.url }}", "$parameter"},
		{"={{ '$credentials' + \"$binary\" + `$x` + $json.a.$b + $('Node').item.json.x }}", ""},
		{"=$credentials {{ $json.x }}", ""},
		{"={{ $items('A')[0].json.x + $itemIndex + $runIndex + $prevNode.name + $workflow.name + $input.first().json.x + $node['A'].json.x }}", ""},
		// A template literal's ${ } is code: a name there is read (it was
		// blanked with the literal's text, and the step's value then came
		// out empty where n8n has one).
		{"={{ `Key: ${$credentials.SerpAPI.key}` }}", "$credentials"},
		{"={{ `${ $if($json.a, 'yes', 'no') } $x` }}", "$if"},
		{"={{ `$credentials ${ $json.a }` /* $binary */ }}", ""},
	} {
		if got := unknownN8NName(c.text); got != c.want {
			t.Errorf("unknownN8NName(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	set := `"name": "Key", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "a", "name": "k", "type": "string", "value": "={{ $credentials.SerpAPI.key }}"}]}}`
	_, diags := importWhole(t, workflow("w", set))
	if !strings.Contains(diags.Error(), "Unsupported expression") || !strings.Contains(diags.Error(), "$credentials") {
		t.Errorf("want Unsupported expression naming $credentials, got %v", diags)
	}
}
