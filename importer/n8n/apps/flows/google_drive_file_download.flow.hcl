# Google Drive: download a file — n8n's Google Drive node v3
# (GoogleDriveV2), File → Download, for one item, as it sends the
# requests (file/download.operation.js): the file's mimeType and name,
# then its bytes (alt=media); a Google Docs, Sheets, Slides or Drawings
# file is exported to the format of the node's option Google File
# Conversion (n8n's defaults when it has none). The file's type is the
# answer's Content-Type as it is, else the file's mimeType. A file over
# the http block's max_bytes (10 MiB) fails the step. Written by flowctl
# import from its registry (importer/n8n/apps); every import writes the
# same file.
# https://developers.google.com/drive/api/reference/rest/v3/files/get
# https://developers.google.com/drive/api/reference/rest/v3/files/export
flow "google_drive_file_download" {
  description = "Downloads a Google Drive file, a Google Docs, Sheets, Slides or Drawings file exported"
}

secret "google_drive" {
  description = "An OAuth2 access token of the Google account n8n's Google Drive credential stands for, with the scope https://www.googleapis.com/auth/drive; flowctl does not refresh it"
}

input "api_url" {
  type        = string
  default     = "https://www.googleapis.com"
  description = "The Drive API's root URL"
}

input "file_id" {
  type        = string
  description = "The file's ID"
}

input "docs_to_format" {
  type        = string
  default     = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
  description = "The type a Google Docs document is exported to"
}

input "slides_to_format" {
  type        = string
  default     = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
  description = "The type a Google Slides presentation is exported to"
}

input "sheets_to_format" {
  type        = string
  default     = "application/x-vnd.oasis.opendocument.spreadsheet"
  description = "The type a Google Sheets spreadsheet is exported to"
}

input "drawings_to_format" {
  type        = string
  default     = "image/jpeg"
  description = "The type another Google file (a drawing) is exported to"
}

step "file" {
  use     = "http"
  url     = "${input.api_url}/drive/v3/files/${input.file_id}"
  query   = { fields = "mimeType,name", supportsTeamDrives = "true", supportsAllDrives = "true" }
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_drive}" }
}

locals {
  mime_type = try(step.file.body.mimeType, null)
  # A Google file: the third part of its type split at dots
  # (application/vnd.google-apps.document), as n8n reads it.
  google = local.mime_type != null && strcontains(coalesce(local.mime_type, "-"), "vnd.google-apps")
  kind   = try(split(".", local.mime_type)[2], "")
  export = lookup({ document = input.docs_to_format, presentation = input.slides_to_format, spreadsheet = input.sheets_to_format }, local.kind, input.drawings_to_format)
}

step "download" {
  use      = "http"
  url      = local.google ? "${input.api_url}/drive/v3/files/${input.file_id}/export" : "${input.api_url}/drive/v3/files/${input.file_id}"
  query    = local.google ? { mimeType = local.export, supportsAllDrives = "true" } : { alt = "media", supportsAllDrives = "true" }
  headers  = { authorization = "Bearer ${secret.google_drive}" }
  response = "base64"
}

output "items" {
  value       = [{ data = step.download.body, mimeType = try(step.download.headers["Content-Type"], local.mime_type) }]
  description = "The file: its bytes in base64 and its type; n8n's node keeps the item's json and sets the file as its binary field"
}
