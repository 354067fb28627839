# Airtable: create a record — n8n's Airtable node v2.1, Record → Create,
# as it builds the request (create.operation: {typecast, fields}); the
# item is the record Airtable answers with, as n8n gives it. Written by
# flowctl import from its registry (importer/n8n/apps); every import
# writes the same file.
# https://airtable.com/developers/web/api/create-records
flow "airtable_record_create" {
  description = "Creates a record in an Airtable table"
}

secret "airtable" {
  description = "An Airtable personal access token of n8n's Airtable credential (or an OAuth2 access token, which flowctl does not refresh), with the scopes data.records:read and data.records:write"
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

input "fields" {
  type        = any
  description = "The record's fields: an object of values by field name"
}

input "typecast" {
  type        = bool
  default     = false
  description = "Whether Airtable converts text to the fields' types (and adds select options)"
}

step "create" {
  use    = "http"
  method = "POST"
  url    = "${input.api_url}/v0/${input.base}/${input.table}"
  headers = {
    accept        = "application/json"
    authorization = "Bearer ${secret.airtable}"
  }
  body = { typecast = input.typecast, fields = input.fields }
}

output "items" {
  value       = [step.create.body]
  description = "The record created, as n8n's node gives it: {id, createdTime, fields}"
}
