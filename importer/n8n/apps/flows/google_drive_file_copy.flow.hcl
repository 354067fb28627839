# Google Drive: copy a file — n8n's Google Drive node v3 (GoogleDriveV2),
# File → Copy, for one item, as it sends the request
# (file/copy.operation.js): the copy's name, its folder (none: the
# file's), Copy Requires Writer Permission and the description. The item
# is the copy the API answers with. Written by flowctl import from its
# registry (importer/n8n/apps); every import writes the same file.
# https://developers.google.com/drive/api/reference/rest/v3/files/copy
flow "google_drive_file_copy" {
  description = "Copies a Google Drive file"
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

input "name" {
  type        = string
  description = "The copy's name"
}

input "parents" {
  type        = list(string)
  default     = []
  description = "The folder of the copy, none for the file's"
}

input "copy_requires_writer_permission" {
  type    = bool
  default = false
}

input "file_description" {
  type        = string
  default     = ""
  description = "The copy's description, none when empty"
}

step "copy" {
  use     = "http"
  method  = "POST"
  url     = "${input.api_url}/drive/v3/files/${input.file_id}/copy"
  query   = { includeItemsFromAllDrives = "true", supportsAllDrives = "true", spaces = "appDataFolder, drive", corpora = "allDrives" }
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_drive}" }
  body = merge(
    { copyRequiresWriterPermission = input.copy_requires_writer_permission, parents = input.parents, name = input.name },
    input.file_description == "" ? {} : { description = input.file_description },
  )
}

output "items" {
  value       = [step.copy.body]
  description = "The copy the API answers with: {kind, id, name, mimeType}"
}
