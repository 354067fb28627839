# Todoist: get a task — n8n's Todoist node v2–v2.1, Task → Get, as it
# builds the request (v2/OperationHandler.js; GenericFunctions.js
# todoistApiRequest: the REST v2 API, Bearer token, JSON); the item is the task. Written by
# flowctl import from its registry (importer/n8n/apps); every import
# writes the same file.
# https://developer.todoist.com/rest/v2/#get-an-active-task
flow "todoist_task_get" {
  description = "Get a task"
}

secret "todoist" {
  description = "The API token of n8n's Todoist credential (API Key), sent as a Bearer token"
}

input "api_url" {
  type        = string
  default     = "https://api.todoist.com/rest/v2"
  description = "The REST API's root URL (n8n's Todoist node before v2.2 calls REST v2)"
}

input "task_id" {
  type        = any
  description = "The task's ID"
}

step "get" {
  use    = "http"
  method = "GET"
  url    = "${input.api_url}/tasks/${input.task_id}"
  headers = {
    accept        = "application/json"
    authorization = "Bearer ${secret.todoist}"
  }
}

output "items" {
  value       = [step.get.body]
  description = "The task, as n8n's node gives it: {id, content, description, project_id, due…}"
}
