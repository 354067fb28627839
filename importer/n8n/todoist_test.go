package n8n_test

import (
	"net/http"
	"strings"
	"testing"
)

// Todoist's Get Many and Update as the corpus has them, the inbox's tasks
// and a priority for each
// (oxbshw+ultimate-n8n-ai-workflows/automation__1718_Schedule_Filter_Automation_Scheduled.json,
// "Get inbox tasks", "Update priority in todoist"): GET /tasks of the
// project, an item for each task, then POST /tasks/ID with the priority
// for each; Update's item is n8n's {success: true}. Close, Reopen,
// Delete and Get as the same workflow's sibling has them
// (automation__1897_Webhook_Filter_Sync_Webhook.json).
func TestTodoistTaskImported(t *testing.T) {
	getMany := `{"id": "a950e470", "name": "Get inbox tasks", "type": "n8n-nodes-base.todoist", "position": [1020, 520], "parameters": {"filters": {"projectId": "938017196"}, "operation": "getAll", "returnAll": true}, "credentials": {"todoistApi": {"id": "1", "name": "Todoist account"}}, "typeVersion": 2}`
	update := `{"id": "d45cf237", "name": "Update priority in todoist", "type": "n8n-nodes-base.todoist", "position": [2060, 520], "parameters": {"taskId": "={{ $json.id }}", "operation": "update", "updateFields": {"priority": "={{ $json.order }}", "dueDateTime": "2026-01-02T03:04:05.000Z", "labels": []}}, "credentials": {"todoistApi": {"id": "1", "name": "Todoist account"}}, "typeVersion": 2}`
	files, diags := importApp(t, appWorkflow(t, "inbox", getMany, update))
	wantDiags(t, diags)
	wantIn(t, files["inbox.flow.hcl"], `step "get_inbox_tasks" {
  use      = "flow.todoist_task_get_many"
  for_each = [{}]
  filters = {
    projectId = "938017196"
  }
  return_all = true
}`, `  use      = "flow.todoist_task_update"`, `secret "todoist" {`)
	srv, reqs := standIn(t, func(r *http.Request) string {
		if r.Method == "GET" {
			return `[{"id": "7", "content": "a", "order": 4}, {"id": "8", "content": "b", "order": 2}]`
		}
		return ""
	})
	out := runImported(t, files, "inbox", map[string]string{"todoist": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["update_priority_in_todoist"], `[{"success": true}, {"success": true}]`)
	got := strings.Join(*reqs, "\n")
	for _, want := range []string{"GET /tasks?project_id=938017196", `POST /tasks/7 {"due_datetime":"2026-01-02T03:04:05Z","priority":4}`, `POST /tasks/8 {"due_datetime":"2026-01-02T03:04:05Z","priority":2}`} {
		if !strings.Contains(got, want) {
			t.Errorf("requests lack %q:\n%s", want, got)
		}
	}

	for _, op := range []string{"close", "reopen", "delete", "get"} {
		node := `{"name": "T", "type": "n8n-nodes-base.todoist", "position": [0, 0], "parameters": {"taskId": "={{ $json.id }}", "operation": "` + op + `"}, "credentials": {"todoistApi": {"id": "1", "name": "Todoist account"}}, "typeVersion": 2.1}`
		files, diags := importApp(t, appWorkflow(t, op, getMany, node))
		wantDiags(t, diags)
		*reqs = nil
		srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			*reqs = append(*reqs, r.Method+" "+r.URL.Path)
			w.Header().Set("Content-Type", "application/json")
			if r.Method == "GET" && r.URL.Path == "/tasks" {
				w.Write([]byte(`[{"id": "7"}]`))
			} else if r.Method == "GET" {
				w.Write([]byte(`{"id": "7", "content": "a"}`))
			} else {
				w.WriteHeader(204)
			}
		})
		out := runImported(t, files, op, map[string]string{"todoist": "ya29.token"}, srv.URL)
		want := map[string]string{"close": `[{"success": true}]`, "reopen": `[{"success": true}]`, "delete": `[{"success": true}]`, "get": `[{"id": "7", "content": "a"}]`}[op]
		wantJSON(t, op+" items", out["t"], want)
		wantJSON(t, op+" requests", *reqs, map[string]string{"close": `["GET /tasks", "POST /tasks/7/close"]`, "reopen": `["GET /tasks", "POST /tasks/7/reopen"]`, "delete": `["GET /tasks", "DELETE /tasks/7"]`, "get": `["GET /tasks", "GET /tasks/7"]`}[op])
	}

	// OAuth2, v2.2 and other operations are errors.
	for _, c := range []struct{ from, to, diag string }{
		{`"operation": "getAll"`, `"operation": "getAll", "authentication": "oAuth2"`, "error /nodes/1/parameters/authentication Unsupported credential"},
		{`"typeVersion": 2}`, `"typeVersion": 2.2}`, "error /nodes/1/typeVersion Unsupported version"},
		{`"operation": "getAll"`, `"operation": "move"`, "error /nodes/1/parameters/operation Unsupported operation"},
	} {
		_, diags := importApp(t, appWorkflow(t, "bad", strings.Replace(getMany, c.from, c.to, 1)))
		wantDiags(t, diags, c.diag)
	}
}
