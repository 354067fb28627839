# Airtable: update a record by its ID — n8n's Airtable node v2.1, Record →
# Update with the record's id to match on, as it builds the request
# (update.operation, batchUpdate: {typecast, records = [{id, fields}]});
# the items are the records Airtable answers with, as n8n gives them.
# Written by flowctl import from its registry (importer/n8n/apps); every
# import writes the same file.
# https://airtable.com/developers/web/api/update-multiple-records
flow "airtable_record_update" {
  description = "Updates the fields of a record of an Airtable table"
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

input "id" {
  type        = string
  description = "The record's ID (rec…)"
}

input "fields" {
  type        = any
  description = "The fields to change: an object of values by field name (the others stay)"
}

input "typecast" {
  type        = bool
  default     = false
  description = "Whether Airtable converts text to the fields' types (and adds select options)"
}

step "update" {
  use    = "http"
  method = "PATCH"
  url    = "${input.api_url}/v0/${input.base}/${input.table}"
  headers = {
    accept        = "application/json"
    authorization = "Bearer ${secret.airtable}"
  }
  body = { typecast = input.typecast, records = [{ id = input.id, fields = input.fields }] }
}

output "items" {
  value       = step.update.body.records
  description = "The records updated, as n8n's node gives them: each {id, createdTime, fields}"
}
