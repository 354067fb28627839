# Airtable: get a record by its ID — n8n's Airtable node v2, Record → Get,
# as it builds the request (get.operation: GET /v0/BASE/TABLE/ID); the
# item is the record as n8n gives it (flattenOutput: its id and
# createdTime with its fields).
# Written by flowctl import from its registry (importer/n8n/apps); every
# import writes the same file.
# https://airtable.com/developers/web/api/get-record
flow "airtable_record_get" {
  description = "Gets a record of an Airtable table"
}

secret "airtable" {
  description = "An Airtable personal access token of n8n's Airtable credential (or an OAuth2 access token, which flowctl does not refresh), with the scope data.records:read"
}

input "api_url" {
  type        = string
  default     = "https://api.airtable.com"
  description = "The Web API's root URL"
}

input "base" {
  type        = string
  description = "The base's ID (app…)"
}

input "table" {
  type        = string
  description = "The table's ID (tbl…) or name"
}

input "id" {
  type        = string
  description = "The record's ID (rec…)"
}

step "get" {
  use    = "http"
  method = "GET"
  url    = "${input.api_url}/v0/${input.base}/${input.table}/${input.id}"
  headers = {
    accept        = "application/json"
    authorization = "Bearer ${secret.airtable}"
  }
}

output "items" {
  value       = [merge({ for k, v in step.get.body : k => v if k != "fields" }, try(step.get.body.fields, {}))]
  description = "The record, as n8n's node gives it: its id and createdTime with its fields"
}
