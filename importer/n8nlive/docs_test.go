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

// docsCase is a Google Docs node's parameters (n8n's), the registry
// flow and its inputs the importer gives for them, and the API's answer.
type docsCase struct {
	Parameters map[string]any `json:"parameters"`
	Answer     any            `json:"answer"`
	flow       string
	inputs     map[string]any
}

// docsDocument is a document as the Docs API gives it: paragraphs of
// text runs and other elements, a table, a section break.
const docsDocument = `{"documentId": "d1", "title": "Notes", "body": {"content": [{"endIndex": 1, "sectionBreak": {}},
 {"paragraph": {"elements": [{"textRun": {"content": "Hello "}}, {"inlineObjectElement": {"inlineObjectId": "i1"}}, {"textRun": {"content": "wörld\n"}}]}},
 {"table": {"rows": 1}}, {"paragraph": {"elements": [{"pageBreak": {}}, {"textRun": {"content": "Bye\n"}}]}}]}}`

// n8nDocs runs n8n's Google Docs node v2 (GoogleDocs.node.js of the
// installed n8n-nodes-base) on each case, its parameters completed with
// their defaults as n8n's workflow does (NodeHelpers.getNodeParameters),
// its requests answered with the case's answer: the requests it sends
// and the items it gives.
func n8nDocs(t *testing.T, n8n string, cases []docsCase) []map[string]any {
	modules := filepath.Dir(filepath.Dir(n8n))
	script := `
const modules = process.argv[1];
const { GoogleDocs } = require(modules + '/n8n-nodes-base/dist/nodes/Google/Docs/GoogleDocs.node.js');
const { NodeHelpers } = require(modules + '/n8n-workflow');
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
(async () => {
  const out = [];
  for (const c of cases) {
    const nodeType = new GoogleDocs();
    const node = { name: 'Docs', type: 'n8n-nodes-base.googleDocs', typeVersion: 2, parameters: c.parameters };
    const params = NodeHelpers.getNodeParameters(nodeType.description.properties, c.parameters, true, false, node, nodeType.description);
    const requests = [];
    const ctx = {
      getInputData: () => [{ json: {} }],
      getNodeParameter: (name, i, fallback) => (params[name] === undefined ? fallback : params[name]),
      getNode: () => node,
      continueOnFail: () => false,
      helpers: {
        requestOAuth2: async (cred, o) => { requests.push({ method: o.method, path: new URL(o.uri).pathname, body: o.body ?? null }); return JSON.parse(JSON.stringify(c.answer)); },
        returnJsonArray: (d) => (Array.isArray(d) ? d : [d]).map((json) => ({ json })),
        constructExecutionMetaData: (items) => items,
      },
    };
    const res = await nodeType.execute.call(ctx);
    out.push({ requests, items: res[0].map((i) => i.json) });
  }
  console.log(JSON.stringify(out));
})();`
	cmd := exec.Command("node", "-e", script, modules)
	in, _ := json.Marshal(cases)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var v []map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("node's answer: %v\n%s", err, out)
	}
	return v
}

// TestGoogleDocsShaping checks the registry's Google Docs flows against
// n8n's own node: for Create, Get (Simplify on and off) and Update
// (actions with and without their defaults, Write Control, Simplify),
// the requests and the items are those n8n's node sends and gives on
// the same answers.
func TestGoogleDocsShaping(t *testing.T) {
	n8n := os.Getenv("FLOWCTL_N8N")
	if n8n == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("FLOWCTL_N8N is not set: .ci/run installs n8n and runs this test with it")
		}
		t.Skip("FLOWCTL_N8N is not set (the path of n8n; .ci/run installs it)")
	}
	var doc any
	json.Unmarshal([]byte(docsDocument), &doc)
	insert := func(text, location, segment string, index int) map[string]any {
		return map[string]any{"action": "insert", "text": text, "location": location, "segment_id": segment, "index": index, "replace_text": "", "match_case": false}
	}
	cases := []docsCase{
		{Parameters: map[string]any{"title": "RFP 7", "folderId": "f1"}, Answer: map[string]any{"kind": "drive#file", "id": "d1", "name": "RFP 7"},
			flow: "google_docs_document_create", inputs: map[string]any{"title": "RFP 7", "folder_id": "f1"}},
		{Parameters: map[string]any{"operation": "get", "documentURL": "https://docs.google.com/document/d/d1/edit"}, Answer: doc,
			flow: "google_docs_document_get", inputs: map[string]any{"document": "https://docs.google.com/document/d/d1/edit"}},
		{Parameters: map[string]any{"operation": "get", "documentURL": "d1", "simple": false}, Answer: doc,
			flow: "google_docs_document_get", inputs: map[string]any{"document": "d1", "simple": false}},
		{Parameters: map[string]any{"operation": "update", "documentURL": "d1", "actionsUi": map[string]any{"actionFields": []any{map[string]any{"text": "Report\n", "action": "insert"}}}},
			Answer: map[string]any{"replies": []any{map[string]any{}}, "writeControl": map[string]any{"requiredRevisionId": "r2"}, "documentId": "d1"},
			flow:   "google_docs_document_update", inputs: map[string]any{"document": "d1", "actions": []any{insert("Report\n", "endOfSegmentLocation", "", 1)}}},
		{Parameters: map[string]any{"operation": "update", "documentURL": "https://docs.google.com/document/d/d1/", "actionsUi": map[string]any{"actionFields": []any{
			map[string]any{"object": "text", "action": "replaceAll", "text": "{{name}}", "replaceText": "Ann", "matchCase": true},
			map[string]any{"action": "insert", "text": "x", "locationChoice": "location", "index": 3, "insertSegment": "header", "segmentId": "kix.h1"},
		}}, "updateFields": map[string]any{"writeControlObject": map[string]any{"control": "targetRevisionId", "value": "r1"}}},
			Answer: map[string]any{"replies": []any{map[string]any{"replaceAllText": map[string]any{"occurrencesChanged": 2}}, map[string]any{}}, "documentId": "d1"},
			flow:   "google_docs_document_update", inputs: map[string]any{"document": "https://docs.google.com/document/d/d1/", "write_control": map[string]any{"targetRevisionId": "r1"},
				"actions": []any{map[string]any{"action": "replaceAll", "text": "{{name}}", "location": "", "segment_id": "", "index": 1, "replace_text": "Ann", "match_case": true}, insert("x", "location", "kix.h1", 3)}}},
		{Parameters: map[string]any{"operation": "update", "documentURL": "d1", "simple": false, "actionsUi": map[string]any{"actionFields": []any{map[string]any{"text": "y", "action": "insert"}}}},
			Answer: map[string]any{"replies": []any{map[string]any{}}, "documentId": "d1"},
			flow:   "google_docs_document_update", inputs: map[string]any{"document": "d1", "simple": false, "actions": []any{insert("y", "endOfSegmentLocation", "", 1)}}},
	}
	want := n8nDocs(t, n8n, cases)
	flowctl := buildFlowctl(t)
	for i, c := range cases {
		var mu sync.Mutex
		var requests []any
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			var body any
			json.Unmarshal(b, &body)
			mu.Lock()
			requests = append(requests, map[string]any{"method": r.Method, "path": r.URL.Path, "body": body})
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(c.Answer)
		}))
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, c.flow+apps.Suffix), apps.Flow(c.flow), 0o644)
		c.inputs["api_url"] = srv.URL
		b, _ := json.Marshal(c.inputs)
		os.WriteFile(filepath.Join(dir, "inputs.json"), b, 0o644)
		cmd := exec.Command(flowctl, "apply", "--auto-approve", "--json", "--state", filepath.Join(dir, "state"), "--input-file", filepath.Join(dir, "inputs.json"), filepath.Join(dir, c.flow+apps.Suffix))
		cmd.Env = append(os.Environ(), "FLOWCTL_SECRET_GOOGLE_DOCS=token")
		out, _ := cmd.Output()
		srv.Close()
		status, outputs := importtest.RunFinished(string(out))
		if status != "ok" {
			t.Fatalf("case %d: flowctl apply %s: %s\n%s", i, c.flow, status, out)
		}
		importtest.CompareOutputs(t, "flowctl", map[string]any{"items": outputs["items"]}, "n8n", map[string]any{"items": want[i]["items"]})
		if !reflect.DeepEqual(requests, want[i]["requests"]) {
			g, _ := json.Marshal(requests)
			w, _ := json.Marshal(want[i]["requests"])
			t.Errorf("case %d: the requests:\n flowctl %s\n     n8n %s", i, g, w)
		}
	}
}
