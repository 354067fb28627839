# Todoist: update a task — n8n's Todoist node v2–v2.1, Task → Update, as it
# builds the request (v2/OperationHandler.js; GenericFunctions.js
# todoistApiRequest: the REST v2 API, Bearer token, JSON); the item is n8n's {success: true}. Written by
# flowctl import from its registry (importer/n8n/apps); every import
# writes the same file.
# https://developer.todoist.com/rest/v2/#update-a-task
flow "todoist_task_update" {
  description = "Update a task"
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

input "fields" {
  type        = any
  default     = {}
  description = "The node's update fields as n8n has them: content, description, priority, dueString, dueDate, dueDateTime, dueLang, labels, order, assigneeId, duration, durationUnit, deadlineDate"
}

locals {
  names = {
    content      = "content"
    priority     = "priority"
    description  = "description"
    dueDateTime  = "due_datetime"
    dueString    = "due_string"
    labels       = "labels"
    dueLang      = "due_lang"
    order        = "order"
    dueDate      = "due_date"
    assigneeId   = "assignee_id"
    duration     = "duration"
    durationUnit = "duration_unit"
    deadlineDate = "deadline_date"
  }
  # Each field whose value JavaScript holds true (labels: a list that is
  # not empty), as n8n sends them; a date-time without its .000
  # milliseconds (FormatDueDatetime).
  set = {
    for k, v in input.fields : local.names[k] => v
    if contains(keys(local.names), k) && (k == "labels" ? can(tolist(v)) && try(length(v), 0) != 0 : !(v == null || v == "" || v == 0 || v == false))
  }
  body = merge(local.set, contains(keys(local.set), "due_datetime") ? { due_datetime = replace(local.set.due_datetime, "/.000Z$/", "Z") } : {})
}

step "update" {
  use    = "http"
  method = "POST"
  url    = "${input.api_url}/tasks/${input.task_id}"
  headers = {
    accept        = "application/json"
    authorization = "Bearer ${secret.todoist}"
    content-type  = "application/json"
  }
  # n8n sends no body when no field is set.
  body = length(local.body) == 0 ? null : local.body
}

output "items" {
  value       = [{ success = step.update.status < 300 }]
  description = "n8n's {success: true}; an error status fails the step"
}
