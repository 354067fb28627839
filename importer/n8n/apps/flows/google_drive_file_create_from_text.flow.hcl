# Google Drive: create a text file — n8n's Google Drive node v3
# (GoogleDriveV2), File → Create From Text, for one item, as it sends
# the requests (file/createFromText.operation.js): a multipart upload of
# the metadata (name, parent folder, text/plain) and the text as UTF-8,
# then the file's name and type set again and its folder added. The
# item is {id}. The multipart body is form-data's, its boundary made
# from the text's hash where form-data draws a random one, the
# metadata's keys sorted. Written by flowctl import
# from its registry (importer/n8n/apps); every import writes the same
# file.
# https://developers.google.com/drive/api/guides/manage-uploads#multipart
flow "google_drive_file_create_from_text" {
  description = "Creates a Google Drive text file"
}

secret "google_drive" {
  description = "An OAuth2 access token of the Google account n8n's Google Drive credential stands for, with the scope https://www.googleapis.com/auth/drive; flowctl does not refresh it"
}

input "api_url" {
  type        = string
  default     = "https://www.googleapis.com"
  description = "The Drive API's root URL"
}

input "name" {
  type        = string
  default     = ""
  description = "The file's name; empty: Untitled"
}

input "content" {
  type        = string
  default     = ""
  description = "The file's text"
}

input "folder_id" {
  type        = string
  default     = "root"
  description = "The file's folder; root: the drive's top"
}

input "drive_id" {
  type        = string
  default     = "My Drive"
  description = "The drive of the folder: My Drive or a shared drive's ID"
}

locals {
  name = input.name == "" ? "Untitled" : input.name
  # n8n's setParentFolder: the folder, else the shared drive, else root.
  parent   = input.folder_id != "root" ? input.folder_id : (input.drive_id != "" && input.drive_id != "My Drive" ? input.drive_id : "root")
  boundary = "--------------------------${substr(sha256(input.content), 0, 24)}"
  # form-data's multipart body: each part's headers, its value, a line
  # break; then the closing boundary.
  body = join("", [
    "--${local.boundary}\r\nContent-Disposition: form-data; name=\"metadata\"\r\nContent-Type: application/json\r\n\r\n",
    jsonencode({ name = local.name, parents = [local.parent], mimeType = "text/plain" }), "\r\n",
    "--${local.boundary}\r\nContent-Disposition: form-data; name=\"data\"\r\nContent-Type: text/plain\r\n\r\n",
    input.content, "\r\n",
    "--${local.boundary}--\r\n",
  ])
}

step "upload" {
  use       = "http"
  method    = "POST"
  url       = "${input.api_url}/upload/drive/v3/files"
  query     = { uploadType = "multipart", supportsAllDrives = "true" }
  headers   = { accept = "application/json", authorization = "Bearer ${secret.google_drive}", "content-type" = "multipart/related; boundary=${local.boundary}" }
  body      = local.body
  body_type = "text"
}

step "file" {
  use     = "http"
  method  = "PATCH"
  url     = "${input.api_url}/drive/v3/files/${step.upload.body.id}"
  query   = { includeItemsFromAllDrives = "true", supportsAllDrives = "true", spaces = "appDataFolder, drive", corpora = "allDrives", addParents = local.parent }
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_drive}" }
  body    = { name = local.name, mimeType = "text/plain" }
}

output "items" {
  value       = [{ id = step.file.body.id }]
  description = "The file's {id}, as n8n's node gives it"
}
