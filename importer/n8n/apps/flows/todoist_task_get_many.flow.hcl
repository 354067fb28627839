# Todoist: get the active tasks — n8n's Todoist node v2–v2.1, Task → Get Many, as it
# builds the request (v2/OperationHandler.js; GenericFunctions.js
# todoistApiRequest: the REST v2 API, Bearer token, JSON); the items are the tasks, the first limit of them without Return All. Written by
# flowctl import from its registry (importer/n8n/apps); every import
# writes the same file.
# https://developer.todoist.com/rest/v2/#get-active-tasks
flow "todoist_task_get_many" {
  description = "Get the active tasks"
}

secret "todoist" {
  description = "The API token of n8n's Todoist credential (API Key), sent as a Bearer token"
}

input "api_url" {
  type        = string
  default     = "https://api.todoist.com/rest/v2"
  description = "The REST API's root URL (n8n's Todoist node before v2.2 calls REST v2)"
}

input "filters" {
  type        = any
  default     = {}
  description = "The node's filters as n8n has them: projectId, sectionId, labelId, filter, lang, ids"
}

input "return_all" {
  type        = bool
  default     = false
  description = "Whether to give every task, or the first limit"
}

input "limit" {
  type        = number
  default     = 50
  description = "How many tasks to give without return_all (n8n's 50)"
}

locals {
  # The query parameter of each filter n8n reads, sent when its value is
  # one JavaScript holds true.
  names = { projectId = "project_id", sectionId = "section_id", labelId = "label", filter = "filter", lang = "lang", ids = "ids" }
  query = { for k, v in input.filters : local.names[k] => tostring(v) if contains(keys(local.names), k) && !(v == null || v == "" || v == 0 || v == false) }
}

step "tasks" {
  use    = "http"
  method = "GET"
  url    = "${input.api_url}/tasks"
  query  = local.query
  headers = {
    accept        = "application/json"
    authorization = "Bearer ${secret.todoist}"
  }
}

output "items" {
  value       = input.return_all ? step.tasks.body : slice(step.tasks.body, 0, min(input.limit, length(step.tasks.body)))
  description = "The tasks, as n8n's node gives them: {id, content, description, project_id, due…} each"
}
