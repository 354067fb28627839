# Airtable: search records — n8n's Airtable node v2.1, Record → Search,
# as it builds the request (search.operation: filterByFormula, fields,
# sort, view; maxRecords with a limit, else every page, 100 records a
# page, following offset) and shapes the records (flattenOutput: the
# record's id and createdTime with its fields). Written by flowctl import
# from its registry (importer/n8n/apps); every import writes the same
# file.
# https://airtable.com/developers/web/api/list-records
flow "airtable_record_search" {
  description = "Lists the records of an Airtable table that a formula selects"
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

input "filter_by_formula" {
  type        = string
  default     = null
  description = "The formula a record must make true (all records when null or empty)"
}

input "fields" {
  type        = list(string)
  default     = null
  description = "The fields to give (all when null)"
}

input "sort" {
  type        = list(object({ field = string, direction = string }))
  default     = null
  description = "The fields to sort by, each asc or desc"
}

input "view" {
  type        = string
  default     = null
  description = "The view whose records, in its order, to search"
}

input "limit" {
  type        = number
  default     = null
  description = "At most this many records, in one request; null: every record, a page of 100 at a time (at most 10 pages)"
}

locals {
  query = merge(
    input.filter_by_formula == null || input.filter_by_formula == "" ? {} : { filterByFormula = input.filter_by_formula },
    { for i, f in coalesce(input.fields, []) : "fields[${i}]" => f },
    merge({}, [for i, s in coalesce(input.sort, []) : { "sort[${i}][field]" = s.field, "sort[${i}][direction]" = s.direction }]...),
    input.view == null ? {} : { view = input.view },
    input.limit == null ? { pageSize = "100" } : { maxRecords = tostring(input.limit) },
  )
  url = "${input.api_url}/v0/${input.base}/${input.table}"
  headers = {
    accept        = "application/json"
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
  when    = input.limit == null && try(step.page_1.body.offset, null) != null
  url     = local.url
  query   = merge(local.query, { offset = try(step.page_1.body.offset, "") })
  headers = local.headers
}

step "page_3" {
  use     = "http"
  when    = input.limit == null && try(step.page_2.body.offset, null) != null
  url     = local.url
  query   = merge(local.query, { offset = try(step.page_2.body.offset, "") })
  headers = local.headers
}

step "page_4" {
  use     = "http"
  when    = input.limit == null && try(step.page_3.body.offset, null) != null
  url     = local.url
  query   = merge(local.query, { offset = try(step.page_3.body.offset, "") })
  headers = local.headers
}

step "page_5" {
  use     = "http"
  when    = input.limit == null && try(step.page_4.body.offset, null) != null
  url     = local.url
  query   = merge(local.query, { offset = try(step.page_4.body.offset, "") })
  headers = local.headers
}

step "page_6" {
  use     = "http"
  when    = input.limit == null && try(step.page_5.body.offset, null) != null
  url     = local.url
  query   = merge(local.query, { offset = try(step.page_5.body.offset, "") })
  headers = local.headers
}

step "page_7" {
  use     = "http"
  when    = input.limit == null && try(step.page_6.body.offset, null) != null
  url     = local.url
  query   = merge(local.query, { offset = try(step.page_6.body.offset, "") })
  headers = local.headers
}

step "page_8" {
  use     = "http"
  when    = input.limit == null && try(step.page_7.body.offset, null) != null
  url     = local.url
  query   = merge(local.query, { offset = try(step.page_7.body.offset, "") })
  headers = local.headers
}

step "page_9" {
  use     = "http"
  when    = input.limit == null && try(step.page_8.body.offset, null) != null
  url     = local.url
  query   = merge(local.query, { offset = try(step.page_8.body.offset, "") })
  headers = local.headers
}

step "page_10" {
  use     = "http"
  when    = input.limit == null && try(step.page_9.body.offset, null) != null
  url     = local.url
  query   = merge(local.query, { offset = try(step.page_9.body.offset, "") })
  headers = local.headers
}

# More pages than the flow reads: it fails rather than give part of them.
step "all_read" {
  use   = "value"
  value = try(step.page_10.body.offset, null) != null ? tobool("the table has more than 1000 records the formula selects: this flow reads 10 pages of 100; add pages to it") : true
}

locals {
  records = flatten([step.page_1.body.records, try(step.page_2.body.records, []), try(step.page_3.body.records, []), try(step.page_4.body.records, []), try(step.page_5.body.records, []), try(step.page_6.body.records, []), try(step.page_7.body.records, []), try(step.page_8.body.records, []), try(step.page_9.body.records, []), try(step.page_10.body.records, [])])
}

output "items" {
  value       = [for r in local.records : merge({ for k, v in r : k => v if k != "fields" }, try(r.fields, {})) if step.all_read.value]
  description = "The records, as n8n's node gives them: each its id and createdTime with its fields"
}
