# Google Drive: delete a file — n8n's Google Drive node v3
# (GoogleDriveV2), File → Delete, for one item: to the trash, or for good
# with Delete Permanently. Written by flowctl import from its registry
# (importer/n8n/apps); every import writes the same file.
# https://developers.google.com/drive/api/reference/rest/v3/files/update
# https://developers.google.com/drive/api/reference/rest/v3/files/delete
flow "google_drive_file_delete" {
  description = "Moves a Google Drive file to the trash, or deletes it for good"
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

input "permanently" {
  type        = bool
  default     = false
  description = "Delete the file for good rather than move it to the trash"
}

step "delete" {
  use     = "http"
  method  = input.permanently ? "DELETE" : "PATCH"
  url     = "${input.api_url}/drive/v3/files/${input.file_id}"
  query   = { supportsAllDrives = "true" }
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_drive}" }
  body    = input.permanently ? null : { trashed = true }
}

output "items" {
  value       = [{ id = input.file_id, success = step.delete.status < 400 }]
  description = "What n8n's node gives: the file's id and success = true (the step fails on an error status, as n8n's node)"
}
