# Google Drive: the files (or folders) created or changed in a folder
# since the last poll — n8n's Google Drive Trigger
# (GoogleDriveTrigger.node.js, poll; v1/GenericFunctions.js:
# googleApiRequestAllItems), Watch For in a specific folder, as one poll
# builds the request: the files not trashed in the folder, of the file
# type, created (or modified) after the time the state keeps, every
# drive searched, 100 a page. The state is the UTC time the poll started
# (on the first poll, when nothing is kept, the time now, as n8n starts),
# which the next poll reads (an imported flow keeps it in a memory:
# stored when its run succeeds). n8n 2.8.4 asks for the first page again
# while the answer has a nextPageToken (its v1 googleApiRequestAllItems
# sends no pageToken), so more than one page never ends there: this flow
# fails on it. Written by flowctl import from its registry
# (importer/n8n/apps); every import writes the same file.
# https://developers.google.com/drive/api/reference/rest/v3/files/list
flow "google_drive_file_poll" {
  description = "Lists the Google Drive files created or changed in a folder since the last poll"
}

secret "google_drive" {
  description = "An OAuth2 access token of the Google account n8n's Google Drive credential stands for, with the scope https://www.googleapis.com/auth/drive; flowctl does not refresh it"
}

input "api_url" {
  type        = string
  default     = "https://www.googleapis.com"
  description = "The Drive API's root URL"
}

input "state" {
  type        = any
  default     = null
  description = "What the last poll kept: { lastTimeChecked = the UTC time it started, YYYY-MM-DDTHH:mm:ssZ }; null before the first poll"
}

input "folder" {
  type        = string
  default     = ""
  description = "The ID of the folder watched"
}

input "event" {
  type        = string
  default     = ""
  description = "Watch For: fileCreated, fileUpdated, folderCreated or folderUpdated (n8n's default, empty, watches folders changed)"
}

input "file_type" {
  type        = string
  default     = "all"
  description = "The MIME type of the files (the File Type option), all for any"
}

step "clock" {
  use   = "poll_clock"
  cache = false
}

locals {
  start = try(input.state.lastTimeChecked, null) != null ? input.state.lastTimeChecked : step.clock.utc
  query = join(" AND ", compact([
    "trashed = false",
    "'${input.folder}' in parents",
    startswith(input.event, "file") ? "mimeType != 'application/vnd.google-apps.folder'" : "mimeType = 'application/vnd.google-apps.folder'",
    input.file_type == "" || input.file_type == "all" ? "" : "mimeType = '${input.file_type}'",
    strcontains(input.event, "Created") ? "createdTime > '${local.start}'" : "modifiedTime > '${local.start}'",
  ]))
}

step "files" {
  use = "http"
  url = "${input.api_url}/drive/v3/files"
  query = {
    includeItemsFromAllDrives = "true"
    supportsAllDrives         = "true"
    spaces                    = "appDataFolder, drive"
    corpora                   = "allDrives"
    q                         = local.query
    fields                    = "nextPageToken, files(*)"
    maxResults                = "100"
    pageSize                  = "100"
  }
  headers = {
    authorization = "Bearer ${secret.google_drive}"
  }
}

# More than a page: n8n asks for the first page again and again.
step "one_page" {
  use   = "value"
  value = try(step.files.body.nextPageToken, "") != "" ? tobool("the folder has more than 100 new files: n8n's Google Drive Trigger asks for the first page again while Drive gives a next page, and never ends; this flow reads one page") : true
}

output "items" {
  value       = step.one_page.value ? try(step.files.body.files, []) : []
  description = "The files (or folders), as Drive gives them (every field), as n8n's trigger gives them"
}

output "state" {
  value       = { lastTimeChecked = step.clock.utc }
  description = "What the next poll reads: the time this poll started"
}
