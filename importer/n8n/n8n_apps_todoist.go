package n8n

import (
	"fmt"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// todoistOps are the operations of the Todoist node v2–v2.1
// (TodoistV2.node.js, v2/OperationHandler.js) converted, by resource.
var todoistOps = map[string][]string{
	"task": {"close", "delete", "get", "getAll", "reopen", "update"},
}

// todoistFilters are Get Many's filters n8n reads (GetAllHandler); the
// others (parentId) it leaves out.
var todoistFilters = []string{"projectId", "sectionId", "labelId", "filter", "lang", "ids", "parentId"}

// todoistUpdateFields are Update's fields (UpdateHandler).
var todoistUpdateFields = []string{"content", "priority", "description", "dueDateTime", "dueString", "labels", "dueLang",
	"order", "dueDate", "assigneeId", "duration", "durationUnit", "deadlineDate"}

// todoistNode is the Todoist node v2–v2.1 with an API key: each task
// operation a flow of the registry, called once for each item as n8n
// calls the REST v2 API for each item, the key the flow's secret.
func (n *n8n) todoistNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	if node.version < 2 || node.version >= 2.2 {
		n.Problem(node.where, node.j.Get("typeVersion"), "Unsupported version",
			"Todoist v2 and v2.1, which call the REST v2 API, are converted; v1 and v2.2 (the API v1, in pages) are not.")
		return nil
	}
	if auth := p.Get("authentication"); auth != nil && !(auth.Kind == 's' && auth.Str == "apiKey") {
		n.Problem(node.where, auth, "Unsupported credential", "Todoist is converted with an API key; OAuth2 is not.")
		return nil
	}
	_, op, ok := n.appOperation(node, "Todoist", "task", "create", todoistOps)
	if !ok {
		return nil
	}
	s := n.appScope(node, in)
	call := appCall{flow: "todoist_task_" + op, cred: "todoistApi"}
	if op == "getAll" {
		call.flow = "todoist_task_get_many"
	} else {
		id := p.Get("taskId")
		if id == nil || id.Kind == 's' && strings.TrimPrefix(id.Str, "=") == "" {
			n.Problem(node.where, orParams(id, node), "Missing parameter", "the node has no Task ID; n8n fails on it too.")
			return nil
		}
		call.args = []importer.Member{{Name: "task_id", Value: s.value(id, "task_id")}}
	}
	call.what = map[string]string{"close": "closes the task", "delete": "deletes the task", "get": "gets the task",
		"getAll": "gets the active tasks", "reopen": "reopens the task", "update": "updates the task"}[op]
	switch op {
	case "getAll":
		fields, ok := n.todoistFields(node, s, "filters", todoistFilters)
		if !ok {
			return nil
		}
		if fields != nil {
			call.args = append(call.args, importer.Member{Name: "filters", Value: fields})
		}
		if v := p.Get("returnAll"); v != nil {
			call.args = append(call.args, importer.Member{Name: "return_all", Value: s.value(v, "return_all")})
		}
		if v := p.Get("limit"); v != nil {
			call.args = append(call.args, importer.Member{Name: "limit", Value: s.value(v, "limit")})
		}
	case "update":
		fields, ok := n.todoistFields(node, s, "updateFields", todoistUpdateFields)
		if !ok {
			return nil
		}
		if fields != nil {
			call.args = append(call.args, importer.Member{Name: "fields", Value: fields})
		}
	}
	return n.appStep(node, in, s, call)
}

// todoistFields reads a collection of the node (Get Many's filters,
// Update's fields) into an object of its values, nil when it has none.
func (n *n8n) todoistFields(node *n8nNode, s *n8nScope, param string, known []string) (importer.Expr, bool) {
	c := node.params.Get(param)
	var ms []importer.Member
	for _, k := range keysOf(c) {
		if !slices.Contains(known, k) {
			n.Problem(node.where, c.Get(k), "Unsupported option", fmt.Sprintf("%s holds %s, which n8n's node does not have.", param, k))
			return nil, false
		}
		ms = append(ms, importer.Member{Name: k, Value: s.value(c.Get(k), k)})
	}
	if ms == nil {
		return nil, true
	}
	return importer.Object(ms), true
}
