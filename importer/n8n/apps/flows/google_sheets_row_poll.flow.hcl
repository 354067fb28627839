# Google Sheets: the rows added since the last poll — n8n's Google Sheets
# Trigger (GoogleSheetsTrigger.node.js, poll; GoogleSheetsTrigger.utils.js:
# arrayOfArraysToJson), Row Added, the data where n8n looks by default
# (the header in row 1, the rows under it), as one poll builds the
# requests: the spreadsheet's sheets (the sheet found by ID or name, as
# spreadsheetGetSheet finds it), the header row (A1:ZZZ1), then the
# sheet's values (A1:ZZZ) with the value and date render options. The
# items are the rows after the ones the last poll counted, each an object
# of the header's columns (an empty, 0 or false cell is "", as n8n gives
# it). The state is what n8n keeps: the spreadsheet's and the sheet's IDs
# and the count of rows (lastIndexChecked); on the first poll, or when
# the sheet is another, the poll counts the rows and gives none, as n8n
# does (an imported flow keeps the state in a memory: stored when its
# run succeeds). Written by flowctl import from its registry
# (importer/n8n/apps); every import writes the same file.
# https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values/get
flow "google_sheets_row_poll" {
  description = "Lists the rows added to a Google sheet since the last poll"
}

secret "google_sheets_trigger" {
  description = "An OAuth2 access token of the Google account n8n's Google Sheets Trigger credential stands for, with the scopes https://www.googleapis.com/auth/spreadsheets.readonly and https://www.googleapis.com/auth/drive.readonly; flowctl does not refresh it"
}

input "api_url" {
  type        = string
  default     = "https://sheets.googleapis.com"
  description = "The Sheets API's root URL"
}

input "state" {
  type        = any
  default     = null
  description = "What the last poll kept: { documentId, sheetId, lastIndexChecked = the count of rows under the header }; null before the first poll"
}

input "document_id" {
  type        = string
  description = "The spreadsheet's ID"
}

input "sheet" {
  type        = string
  description = "The sheet: its title (sheet_by = \"name\") or its ID, the gid of its URL"
}

input "sheet_by" {
  type        = string
  default     = "id"
  description = "How sheet names the sheet: name or id"
}

input "value_render" {
  type        = string
  default     = "UNFORMATTED_VALUE"
  description = "The Value Render option (valueRenderOption)"
}

input "date_render" {
  type        = string
  default     = "FORMATTED_STRING"
  description = "The DateTime Render option (dateTimeRenderOption)"
}

locals {
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_sheets_trigger}" }
  url     = "${input.api_url}/v4/spreadsheets/${input.document_id}"
}

step "sheets" {
  use     = "http"
  url     = local.url
  query   = { fields = "sheets.properties" }
  headers = local.headers
}

step "sheet" {
  use    = "google_sheets_sheet"
  sheets = step.sheets.body.sheets
  by     = input.sheet_by
  value  = input.sheet
}

step "key_row" {
  use     = "http"
  url     = "${local.url}/values/${step.sheet.escaped_title}!A1:ZZZ1"
  headers = local.headers
}

# n8n fails when the header row is empty.
step "columns" {
  use   = "value"
  value = length(try(step.key_row.body.values[0], [])) > 0 ? step.key_row.body.values[0] : tolist(tobool("Could not retrieve the columns from key row"))
}

step "values" {
  use        = "http"
  depends_on = [step.columns]
  url        = "${local.url}/values/${step.sheet.escaped_title}!A1:ZZZ"
  query      = { valueRenderOption = input.value_render, dateTimeRenderOption = input.date_render }
  headers    = local.headers
}

locals {
  # The rows under the header (n8n removes the first row); an empty sheet
  # has no values, and n8n then counts nothing.
  has  = try(step.values.body.values, null) != null
  rows = [for i, r in try(step.values.body.values, []) : r if i >= 1]
  # Another spreadsheet or sheet than the kept one counts from scratch.
  same  = try(input.state.documentId == input.document_id && input.state.sheetId == step.sheet.sheet_id, false)
  seen  = local.same ? try(input.state.lastIndexChecked, null) : null
  added = [for i, r in local.rows : r if i >= (local.seen == null ? length(local.rows) : local.seen)]
}

step "items" {
  use     = "google_sheets_trigger_rows"
  rows    = local.added
  columns = step.columns.value
}

output "items" {
  value       = step.items.items
  description = "The rows added, each an object of the header's columns, as n8n's trigger gives them"
}

output "state" {
  value       = { documentId = input.document_id, sheetId = step.sheet.sheet_id, lastIndexChecked = local.has ? length(local.rows) : local.seen }
  description = "What the next poll reads: the spreadsheet, the sheet and the count of rows under the header"
}
