# Google Drive: share a file — n8n's Google Drive node v3
# (GoogleDriveV2), File → Share, for one item, as it sends the request
# (file/share.operation.js): a permission of the node's Permissions
# (role, type, and the email address, domain or Allow File Discovery its
# type shows), the options as the query. The item is the permission the
# API answers with. Written by flowctl import from its registry
# (importer/n8n/apps); every import writes the same file.
# https://developers.google.com/drive/api/reference/rest/v3/permissions/create
flow "google_drive_file_share" {
  description = "Shares a Google Drive file: adds a permission"
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

input "permission" {
  type        = any
  default     = {}
  description = "The permission: role, type, and emailAddress, domain or allowFileDiscovery"
}

input "options" {
  type        = any
  default     = {}
  description = "The node's options, sent as the query: emailMessage, sendNotificationEmail, transferOwnership…"
}

step "share" {
  use     = "http"
  method  = "POST"
  url     = "${input.api_url}/drive/v3/files/${input.file_id}/permissions"
  query   = merge({ supportsAllDrives = "true" }, { for k, v in input.options : k => tostring(v) })
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_drive}" }
  body    = input.permission
}

output "items" {
  value       = [step.share.body]
  description = "The permission the API answers with: {kind, id, type, role…}"
}
