package n8nlive

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/importer/importtest"
	"github.com/flowctl/flowctl/importer/n8n/apps"
)

// notionPages are database pages as Notion's API gives them, of every
// kind of property n8n's simplification reads, and some it drops.
const notionPages = `[{"object":"page","id":"p1","url":"https://www.notion.so/p1","parent":{"type":"database_id","database_id":"d"},"properties":{
 "Name":{"type":"title","title":[{"type":"text","plain_text":"Acme "},{"type":"mention","plain_text":"@Ann"},{"type":"text","plain_text":"Corp"}]},
 "Clockify Client ID":{"type":"rich_text","rich_text":[]},"Status":{"type":"status","status":{"name":"In progress"}},
 "Archive":{"type":"checkbox","checkbox":false},"Priority":{"type":"select","select":null},
 "Tags":{"type":"multi_select","multi_select":[{"name":"vip"},{"id":"t2"}]},"Clients":{"type":"relation","relation":[{"id":"r1"}]},
 "Hours":{"type":"number","number":12.5},"Due Date":{"type":"date","date":{"start":"2025-03-01","end":null}},
 "Owner":{"type":"people","people":[{"person":{"email":"ann@example.com"}},{"id":"u2"}]},"Score":{"type":"formula","formula":{"type":"string","string":"x"}},
 "Done %":{"type":"rollup","rollup":{"type":"number","number":0.5,"function":"percent_checked"}},
 "Count":{"type":"rollup","rollup":{"type":"number","number":3,"function":"count"}},
 "Names":{"type":"rollup","rollup":{"type":"array","function":"show_original","array":[{"type":"title","title":[{"type":"text","plain_text":"A"}]},{"type":"title","title":[{"type":"text","plain_text":"A"}]}]}},
 "Files":{"type":"files","files":[{"type":"external","external":{"url":"https://example.com/cv.pdf"}},{"type":"file","file":{"url":"https://s3/x"}}]},
 "Website":{"type":"url","url":null},"Ticket":{"type":"unique_id","unique_id":{"number":7}},"Created by":{"type":"created_by","created_by":{"id":"u1","name":"Ann"}},
 "TaskID2":{"type":"phone_number","phone_number":"+1"},"XMLHttp Request":{"type":"email","email":"a@b.c"},"  été 100%":{"type":"last_edited_time","last_edited_time":"2025"}}},
 {"object":"page","id":"p2","url":"u2","parent":{"type":"database_id","database_id":"d"},"properties":{"Name":{"type":"title","title":[]},"Status":{"type":"status","status":null}}},
 {"object":"page","id":"p3","url":"u3","parent":{"type":"workspace"},"properties":{"title":{"type":"title","title":[{"plain_text":"Top"}]}}},
 {"object":"database","id":"d1","url":"u4","title":[{"plain_text":"Tasks"}]}]`

// notionProperties are the property values of every type the importer
// converts, as it gives them to the flows (n8n's defaults filled in).
const notionProperties = `[{"key":"Name|title","type":"title","title":"Acme"},{"key":"Status|status","type":"status","statusValue":"Done"},
 {"key":"Focus|checkbox","type":"checkbox","checkboxValue":true},{"key":"Priority|select","type":"select","selectValue":""},
 {"key":"Level|select","type":"select","selectValue":"High"},
 {"key":"Tags|multi_select","type":"multi_select","multiSelectValue":"vip, 1a878e40-f803-40e6-8df1-cf50776752da"},
 {"key":"More|multi_select","type":"multi_select","multiSelectValue":["a", null, "b"]},
 {"key":"Semesters|relation","type":"relation","relationValue":["1a878e40f80340e68df1cf50776752da, 2a878e40-f803-40e6-8df1-cf50776752da",""]},
 {"key":"Hours|number","type":"number","numberValue":3.5},{"key":"Link|url","type":"url","ignoreIfEmpty":true,"urlValue":""},
 {"key":"Site|url","type":"url","ignoreIfEmpty":false,"urlValue":""},{"key":"Owner|people","type":"people","peopleValue":"u1"},
 {"key":"Resume|files","type":"files","fileUrls":{"fileUrl":[{"url":"https://example.com/cv.pdf","name":"Resume"}]}},
 {"key":"Clockify Client ID|rich_text","type":"rich_text","richText":false,"textContent":"42"},
 {"key":"Mail|email","type":"email","emailValue":"a@example.com"},{"key":"Phone|phone_number","type":"phone_number","phoneValue":"+1"}]`

// notionConditions are manual filter conditions of every type the
// importer converts.
const notionConditions = `[{"key":"Status|status","type":"status","condition":"does_not_equal","statusValue":"Done"},
 {"key":"Archive|checkbox","type":"checkbox","condition":"equals","checkboxValue":false},
 {"key":"Clients|relation","type":"relation","condition":"is_not_empty","relationValue":""},
 {"key":"Clockify ID|rich_text","type":"rich_text","condition":"equals","richTextValue":"42"},
 {"key":"Phone|phone_number","type":"phone_number","condition":"is_empty","phoneNumberValue":""},
 {"key":"Tags|multi_select","type":"multi_select","condition":"contains","multiSelectValue":"vip"},
 {"key":"Owner|people","type":"people","condition":"contains","peopleValue":"u1"},
 {"key":"By|created_by","type":"created_by","condition":"contains","createdByValue":"u1"},
 {"key":"Files|files","type":"files","condition":"is_not_empty"},
 {"key":"Score|formula","type":"formula","condition":"greater_than","returnType":"number","numberValue":2},
 {"key":"Label|formula","type":"formula","condition":"is_empty","returnType":"text","textValue":""},
 {"key":"Hours|number","type":"number","condition":"less_than","numberValue":8}]`

// n8nNotion is what n8n's own Notion functions (GenericFunctions.js of
// the installed n8n-nodes-base) make of the samples: simplifyObjects of
// notionPages, mapProperties (v2) of notionProperties, and the query's
// filter of notionConditions, all and any, as NotionV2.node.js builds it.
func n8nNotion(t *testing.T, n8n string) map[string]any {
	modules := filepath.Dir(filepath.Dir(n8n))
	script := `
const g = require(process.argv[1] + '/n8n-nodes-base/dist/nodes/Notion/shared/GenericFunctions.js');
const [pages, props, conds] = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const ctx = { getNode: () => ({ name: 'Notion' }) };
console.log(JSON.stringify({
  simple: g.simplifyObjects(pages),
  properties: g.mapProperties.call(ctx, props, 'UTC', 2),
  and: { and: conds.map((c) => g.mapFilters([c], 'UTC')) },
  or: { or: conds.map((c) => g.mapFilters([c], 'UTC')) },
}));`
	cmd := exec.Command("node", "-e", script, modules)
	in, _ := json.Marshal([]json.RawMessage{json.RawMessage(notionPages), json.RawMessage(notionProperties), json.RawMessage(notionConditions)})
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("node's answer: %v\n%s", err, out)
	}
	return v
}

// TestNotionShaping checks the registry's Notion flows against n8n's own
// code: the items Get Many gives (Simplify), the body of Update (the
// property values) and the filter of Get Many (the conditions) are
// those n8n's functions make of the same data.
func TestNotionShaping(t *testing.T) {
	n8n := os.Getenv("FLOWCTL_N8N")
	if n8n == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("FLOWCTL_N8N is not set: .ci/run installs n8n and runs this test with it")
		}
		t.Skip("FLOWCTL_N8N is not set (the path of n8n; .ci/run installs it)")
	}
	want := n8nNotion(t, n8n)
	flowctl := buildFlowctl(t)

	var mu sync.Mutex
	var bodies []any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var v any
		json.Unmarshal(b, &v)
		mu.Lock()
		bodies = append(bodies, v)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Method == "PATCH" {
			io.WriteString(w, `{"object": "page", "id": "p", "parent": {"type": "workspace"}, "properties": {"title": {"type": "title", "title": [{"plain_text": "T"}]}}}`)
			return
		}
		io.WriteString(w, `{"object": "list", "results": `+notionPages+`, "has_more": false, "next_cursor": null}`)
	}))
	defer srv.Close()

	apply := func(flow string, inputs map[string]any) map[string]any {
		t.Helper()
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, flow+apps.Suffix), apps.Flow(flow), 0o644)
		os.Mkdir(filepath.Join(dir, "blocks"), 0o755)
		for _, b := range apps.Blocks(flow) {
			os.WriteFile(filepath.Join(dir, "blocks", b+apps.BlockSuffix), apps.Block(b), 0o644)
		}
		inputs["api_url"] = srv.URL
		b, _ := json.Marshal(inputs)
		os.WriteFile(filepath.Join(dir, "inputs.json"), b, 0o644)
		cmd := exec.Command(flowctl, "apply", "--auto-approve", "--json", "--state", filepath.Join(dir, "state"), "--input-file", filepath.Join(dir, "inputs.json"), filepath.Join(dir, flow+apps.Suffix))
		cmd.Env = append(os.Environ(), "FLOWCTL_SECRET_NOTION=token")
		out, _ := cmd.Output()
		status, outputs := importtest.RunFinished(string(out))
		if status != "ok" {
			t.Fatalf("flowctl apply %s: %s\n%s", flow, status, out)
		}
		return outputs
	}
	var props, conds any
	json.Unmarshal([]byte(notionProperties), &props)
	json.Unmarshal([]byte(notionConditions), &conds)

	out := apply("notion_database_page_get_many", map[string]any{"database_id": "d", "return_all": true, "filter_type": "manual", "match_type": "allFilters", "conditions": conds})
	importtest.CompareOutputs(t, "flowctl", map[string]any{"items": out["items"]}, "n8n", map[string]any{"items": want["simple"]})
	out = apply("notion_database_page_get_many", map[string]any{"database_id": "d", "limit": 3, "filter_type": "manual", "conditions": conds})
	apply("notion_database_page_update", map[string]any{"page_id": "p", "properties": props})

	wantBodies := []any{map[string]any{"filter": want["and"]}, map[string]any{"filter": want["or"], "page_size": float64(3)}, map[string]any{"properties": want["properties"]}}
	if !reflect.DeepEqual(bodies, wantBodies) {
		g, _ := json.Marshal(bodies)
		w, _ := json.Marshal(wantBodies)
		t.Errorf("the requests' bodies:\n flowctl %s\n     n8n %s", g, w)
	}
}
