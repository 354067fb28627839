package n8n_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/importer/n8n/apps"
	"github.com/hashicorp/hcl/v2"
)

// appWorkflow is a workflow named name: a Manual Trigger, then the nodes
// in a chain.
func appWorkflow(t *testing.T, name string, nodes ...string) []byte {
	t.Helper()
	all := []string{`{"parameters": {}, "name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0]}`}
	all = append(all, nodes...)
	conns := map[string]any{}
	prev := "Start"
	for _, n := range nodes {
		var node struct{ Name string }
		if err := json.Unmarshal([]byte(n), &node); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		conns[prev] = map[string]any{"main": [][]map[string]any{{{"node": node.Name, "type": "main", "index": 0}}}}
		prev = node.Name
	}
	c, _ := json.Marshal(conns)
	return []byte(`{"name": ` + strings.TrimSpace(string(mustJSON(name))) + `, "nodes": [` + strings.Join(all, ",\n") + `], "connections": ` + string(c) + `}`)
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// importApp imports workflows; it returns the files written by name and
// the diagnostics as "severity path summary" lines. What is written must
// validate.
func importApp(t *testing.T, srcs ...[]byte) (map[string]string, []string) {
	t.Helper()
	var in []importer.File
	for i, s := range srcs {
		in = append(in, importer.File{Name: "wf" + string(rune('1'+i)) + ".json", Bytes: s})
	}
	res, diags := importer.Import(in, importer.Options{})
	var lines []string
	for _, d := range diags {
		sev := "warning"
		if d.Severity == hcl.DiagError {
			sev = "error"
		}
		path := ""
		if o, ok := d.Extra.(importer.Origin); ok {
			path = o.Path
		}
		lines = append(lines, sev+" "+path+" "+d.Summary)
	}
	if res == nil {
		return nil, lines
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatalf("the flows do not validate: %s", d.Error())
	}
	files := map[string]string{}
	for _, f := range res.Files {
		if _, dup := files[f.Name]; dup {
			t.Errorf("%s is written twice", f.Name)
		}
		files[f.Name] = string(f.Bytes)
	}
	return files, lines
}

// An app node becomes a step that uses the registry's flow of its
// operation, written beside the flow as it is in the registry: for each
// item, the node's parameters as the flow's inputs, the credential's
// secret as its access token (a warning says refreshing it is the
// user's). Two workflows of a batch write the registry's flow once, and
// two nodes on one credential share its secret. From
// Zie619+n8n-workflows/workflows__Aggregate__0472_Aggregate_Gmail_Create_Triggered.json
// and …/workflows__Code__0548_Code_Webhook_Create_Webhook.json.
func TestAppRegistryFlow(t *testing.T) {
	add := `{"parameters": {"labelIds": "={{ $json.id }}", "messageId": "={{ $json.message }}", "operation": "addLabels"}, "name": "Add labels to message", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "position": [200, 0], "credentials": {"gmailOAuth2": {"id": "SPECSn66s6QHmld9", "name": "Gmail account"}}}`
	music := `{"parameters": {"labelIds": ["Label_6822395192337188416"], "messageId": "={{ $json.id }}", "operation": "addLabels"}, "name": "Add music label", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "position": [400, 0], "credentials": {"gmailOAuth2": {"id": "SPECSn66s6QHmld9", "name": "Gmail account"}}}`
	item := `{"parameters": {"jsCode": "return [{json: {id: 'Label_47', message: '18c1'}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	files, diags := importApp(t, appWorkflow(t, "labels", item, add, music), appWorkflow(t, "more labels", item, music))
	wantDiags(t, diags,
		"warning /nodes/2/credentials OAuth2 access token",
		"warning /nodes/2/credentials OAuth2 access token")
	want := []string{"blocks/n8n.block.hcl", "gmail_message_add_labels.flow.hcl", "labels.flow.hcl", "more_labels.flow.hcl"}
	if got := importer.SortedKeys(files); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("files %v, want %v", got, want)
	}
	if files["gmail_message_add_labels.flow.hcl"] != string(apps.Flow("gmail_message_add_labels")) {
		t.Errorf("the registry's flow is not written as it is:\n%s", files["gmail_message_add_labels.flow.hcl"])
	}
	wantIn(t, files["labels.flow.hcl"],
		`secret "gmail_account" { description = "an OAuth2 access token of n8n credential \"Gmail account\" (gmailOAuth2)" }`,
		`# n8n node "Add labels to message" (gmail v2.1): adds labels to the message, once for each item (flow gmail_message_add_labels.flow.hcl, beside this one)
step "add_labels_to_message" {
  use          = "flow.gmail_message_add_labels"
  for_each     = step.item.items
  access_token = secret.gmail_account
  message_id   = each.value.message
  label_ids    = each.value.id
}`,
		`step "add_music_label" {
  use          = "flow.gmail_message_add_labels"
  for_each     = flatten([for r in step.add_labels_to_message : r.items])
  access_token = secret.gmail_account
  message_id   = each.value.id
  label_ids    = ["Label_6822395192337188416"]
}`)
}

// An operation the app's converter does not convert is an error at the
// node's operation that names both (--partial: a step that fails with it).
func TestAppUnsupportedOperation(t *testing.T) {
	node := `{"parameters": {"operation": "markAsUnread", "messageId": "={{ $json.id }}"}, "name": "Unread", "type": "n8n-nodes-base.gmail", "typeVersion": 2.1, "position": [200, 0]}`
	_, diags := importApp(t, appWorkflow(t, "unread", node))
	wantDiags(t, diags, "error /nodes/1/parameters/operation Unsupported operation")
	res, all := importer.Import([]importer.File{{Name: "wf.json", Bytes: appWorkflow(t, "unread", node)}}, importer.Options{Partial: true})
	if res == nil || !strings.Contains(all[0].Detail, `Node "Unread" (n8n-nodes-base.gmail), at /nodes/1/parameters/operation in wf.json: the Gmail node's message markAsUnread operation is not converted`) {
		t.Errorf("partial: %v", all)
	}
}
