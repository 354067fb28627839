# Google Drive: move a file — n8n's Google Drive node v3 (GoogleDriveV2),
# File → Move, for one item, as it sends the requests
# (file/move.operation.js): the file's parents, then the file added to
# the folder (the shared drive's top, root for My Drive's) and removed
# from them. The item is the file the API
# answers with. Written by flowctl import from its registry
# (importer/n8n/apps); every import writes the same file.
# https://developers.google.com/drive/api/reference/rest/v3/files/update
flow "google_drive_file_move" {
  description = "Moves a Google Drive file to a folder"
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

input "folder_id" {
  type        = string
  default     = "root"
  description = "The folder the file goes to; root: the drive's top"
}

input "drive_id" {
  type        = string
  default     = "My Drive"
  description = "The drive of the folder: My Drive or a shared drive's ID"
}

locals {
  # n8n's setParentFolder: the folder, else the shared drive, else root.
  parent = input.folder_id != "root" ? input.folder_id : (input.drive_id != "" && input.drive_id != "My Drive" ? input.drive_id : "root")
  query  = { includeItemsFromAllDrives = "true", supportsAllDrives = "true", spaces = "appDataFolder, drive", corpora = "allDrives" }
}

step "parents" {
  use     = "http"
  url     = "${input.api_url}/drive/v3/files/${input.file_id}"
  query   = merge(local.query, { fields = "parents" })
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_drive}" }
}

step "move" {
  use     = "http"
  method  = "PATCH"
  url     = "${input.api_url}/drive/v3/files/${input.file_id}"
  query   = merge(local.query, { addParents = local.parent, removeParents = join(",", try(step.parents.body.parents, [])) })
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_drive}" }
}

output "items" {
  value       = [step.move.body]
  description = "The file the API answers with: {kind, id, name, mimeType}"
}
