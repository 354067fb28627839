# Google Drive: search files and folders — n8n's Google Drive node v3
# (GoogleDriveV2), File/Folder → Search, for one item, as it builds the
# request (fileFolder/search.operation.js, helpers/utils.js:
# prepareQueryString, updateDriveScopes; transport: googleApiRequestAllItems):
# the query of the name or the advanced search and the filter, the fields,
# the drives searched; at most limit files, or with Return All every
# page, 100 a page, following nextPageToken. The items are the files the
# API answers with. Written by flowctl import from its registry
# (importer/n8n/apps); every import writes the same file.
# https://developers.google.com/drive/api/reference/rest/v3/files/list
flow "google_drive_search" {
  description = "Searches Google Drive files and folders"
}

secret "google_drive" {
  description = "An OAuth2 access token of the Google account n8n's Google Drive credential stands for, with the scope https://www.googleapis.com/auth/drive; flowctl does not refresh it"
}

input "api_url" {
  type        = string
  default     = "https://www.googleapis.com"
  description = "The Drive API's root URL"
}

input "search_method" {
  type        = string
  default     = "name"
  description = "name (the name contains query_string) or query (query_string is a Drive query)"
}

input "query_string" {
  type    = string
  default = ""
}

input "filter" {
  type        = bool
  default     = false
  description = "Whether the node has a filter (n8n adds trashed = false only then)"
}

input "folder_id" {
  type        = string
  default     = ""
  description = "The filter's folder: its files and folders ('ID' in parents); root is every folder of My Drive"
}

input "drive_id" {
  type        = string
  default     = ""
  description = "The filter's drive: My Drive, or a shared drive's ID"
}

input "what_to_search" {
  type        = string
  default     = "all"
  description = "all, files or folders"
}

input "file_types" {
  type        = list(string)
  default     = []
  description = "The MIME types of the files (* for all)"
}

input "include_trashed" {
  type    = bool
  default = false
}

input "fields" {
  type        = list(string)
  default     = []
  description = "The fields of each file (* for all); id and name when none"
}

input "return_all" {
  type    = bool
  default = false
}

input "limit" {
  type    = number
  default = 50
}

locals {
  folder_mime = "application/vnd.google-apps.folder"
  types       = length(input.file_types) > 0 && !contains(input.file_types, "*") && input.what_to_search != "folders" ? input.file_types : []
  parts = concat(
    [input.search_method == "name" ? "name contains '${input.query_string}'" : input.query_string],
    input.filter && input.folder_id != "" && input.folder_id != "root" ? ["'${input.folder_id}' in parents"] : [],
    input.filter && input.what_to_search == "folders" ? ["mimeType = '${local.folder_mime}'"] : [],
    input.filter && input.what_to_search == "files" ? ["mimeType != '${local.folder_mime}'"] : [],
    input.filter && !input.include_trashed ? ["trashed = false"] : [],
    input.filter && length(local.types) > 0 ? ["(${join(" or ", [for t in local.types : "mimeType = '${t}'"])})"] : [],
  )
  fields = length(input.fields) == 0 ? "id, name" : (contains(input.fields, "*") ? "*" : join(", ", input.fields))
  # updateDriveScopes, then My Drive's root alone.
  scope = (input.drive_id == "" && input.folder_id == "root" ? { corpora = "user", spaces = "drive", includeItemsFromAllDrives = "false", supportsAllDrives = "false" }
    : input.drive_id == "My Drive" ? { corpora = "user", spaces = "appDataFolder, drive", includeItemsFromAllDrives = "false", supportsAllDrives = "false" }
    : input.drive_id != "" ? { corpora = "drive", spaces = "appDataFolder, drive", includeItemsFromAllDrives = "true", supportsAllDrives = "true", driveId = input.drive_id }
  : { corpora = "allDrives", spaces = "appDataFolder, drive", includeItemsFromAllDrives = "true", supportsAllDrives = "true" })
  query = merge(local.scope, {
    fields = "nextPageToken, files(${local.fields})"
    q      = join(" and ", [for p in local.parts : p if p != ""])
  }, input.return_all ? { maxResults = "100", pageSize = "100" } : { pageSize = tostring(input.limit) })
  url = "${input.api_url}/drive/v3/files"
  headers = {
    accept        = "application/json"
    authorization = "Bearer ${secret.google_drive}"
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
  when    = input.return_all && try(step.page_1.body.nextPageToken, "") != ""
  url     = local.url
  query   = merge(local.query, { pageToken = try(step.page_1.body.nextPageToken, "") })
  headers = local.headers
}

step "page_3" {
  use     = "http"
  when    = input.return_all && try(step.page_2.body.nextPageToken, "") != ""
  url     = local.url
  query   = merge(local.query, { pageToken = try(step.page_2.body.nextPageToken, "") })
  headers = local.headers
}

step "page_4" {
  use     = "http"
  when    = input.return_all && try(step.page_3.body.nextPageToken, "") != ""
  url     = local.url
  query   = merge(local.query, { pageToken = try(step.page_3.body.nextPageToken, "") })
  headers = local.headers
}

step "page_5" {
  use     = "http"
  when    = input.return_all && try(step.page_4.body.nextPageToken, "") != ""
  url     = local.url
  query   = merge(local.query, { pageToken = try(step.page_4.body.nextPageToken, "") })
  headers = local.headers
}

# More pages than the flow reads: it fails rather than give part of them.
step "all_read" {
  use   = "value"
  value = input.return_all && try(step.page_5.body.nextPageToken, "") != "" ? tobool("the search finds more than 500 files: this flow reads 5 pages of 100; add pages to it") : true
}

output "items" {
  value       = step.all_read.value ? flatten([for p in [step.page_1, step.page_2, step.page_3, step.page_4, step.page_5] : try(p.body.files, [])]) : []
  description = "The files and folders, as n8n's node gives them: the fields asked for of each (id and name by default)"
}
