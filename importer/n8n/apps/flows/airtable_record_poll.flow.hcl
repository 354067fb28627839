# Airtable: the records whose trigger field is after the last poll —
# n8n's Airtable Trigger (AirtableTrigger.node.js, poll;
# v1/GenericFunctions.js: apiRequestAllItems), as one poll builds the
# request: GET /v0/BASE/TABLE with the formula
# IS_AFTER({FIELD}, DATETIME_PARSE("KEPT", "YYYY-MM-DD HH:mm:ss")), and
# with the Formula option AND(that, FORMULA), the View option, 100
# records a page, following offset. The items are the records as
# Airtable gives them ({id, createdTime, fields}). The state is the UTC
# time the poll started (on the first poll, when nothing is kept, the
# time now, as n8n starts), which the next poll reads (an imported flow
# keeps it in a memory: stored when its run succeeds). Written by
# flowctl import from its registry (importer/n8n/apps); every import
# writes the same file.
# https://airtable.com/developers/web/api/list-records
flow "airtable_record_poll" {
  description = "Lists the Airtable records whose trigger field is after the last poll"
}

secret "airtable" {
  description = "An Airtable personal access token of n8n's Airtable credential (or an OAuth2 access token, which flowctl does not refresh), with the scope data.records:read"
}

input "api_url" {
  type        = string
  default     = "https://api.airtable.com"
  description = "The Airtable API's root URL"
}

input "state" {
  type        = any
  default     = null
  description = "What the last poll kept: { lastTimeChecked = the UTC time it started, YYYY-MM-DDTHH:mm:ssZ }; null before the first poll"
}

input "base" {
  type        = string
  description = "The base's ID"
}

input "table" {
  type        = string
  description = "The table's ID or name"
}

input "trigger_field" {
  type        = string
  description = "The field (a created or last modified time) whose time is after the last poll"
}

input "formula" {
  type        = string
  default     = ""
  description = "The Formula option: a formula the records match too"
}

input "view" {
  type        = string
  default     = ""
  description = "The View option: the view whose records are listed"
}

step "clock" {
  use   = "poll_clock"
  cache = false
}

locals {
  start = try(input.state.lastTimeChecked, null) != null ? input.state.lastTimeChecked : step.clock.utc
  after = "IS_AFTER({${input.trigger_field}}, DATETIME_PARSE(\"${local.start}\", \"YYYY-MM-DD HH:mm:ss\"))"
  query = merge(
    input.view == "" ? {} : { view = input.view },
    { filterByFormula = input.formula == "" ? local.after : "AND(${local.after}, ${input.formula})" },
    { pageSize = "100" },
  )
  url = "${input.api_url}/v0/${input.base}/${input.table}"
  headers = {
    authorization = "Bearer ${secret.airtable}"
  }
}

step "page_1" {
  use     = "http"
  url     = local.url
  query   = local.query
  headers = local.headers
}

step "page_2" {
  use     = "http"
  when    = try(step.page_1.body.offset, null) != null
  url     = local.url
  query   = merge(local.query, { offset = try(step.page_1.body.offset, "") })
  headers = local.headers
}

step "page_3" {
  use     = "http"
  when    = try(step.page_2.body.offset, null) != null
  url     = local.url
  query   = merge(local.query, { offset = try(step.page_2.body.offset, "") })
  headers = local.headers
}

step "page_4" {
  use     = "http"
  when    = try(step.page_3.body.offset, null) != null
  url     = local.url
  query   = merge(local.query, { offset = try(step.page_3.body.offset, "") })
  headers = local.headers
}

step "page_5" {
  use     = "http"
  when    = try(step.page_4.body.offset, null) != null
  url     = local.url
  query   = merge(local.query, { offset = try(step.page_4.body.offset, "") })
  headers = local.headers
}

# More pages than the flow reads: it fails rather than give part of them.
step "all_read" {
  use   = "value"
  value = try(step.page_5.body.offset, null) != null ? tobool("the table has more than 500 records after the last poll: this flow reads 5 pages of 100; add pages to it") : true
}

output "items" {
  value       = step.all_read.value ? flatten([for p in [step.page_1, step.page_2, step.page_3, step.page_4, step.page_5] : try(p.body.records, [])]) : []
  description = "The records, as Airtable gives them and n8n's trigger gives them: id, createdTime, fields"
}

output "state" {
  value       = { lastTimeChecked = step.clock.utc }
  description = "What the next poll reads: the time this poll started"
}
