# Google Drive: create a folder — n8n's Google Drive node v3
# (GoogleDriveV2), Folder → Create, for one item, as it sends the
# request (folder/create.operation.js): the name (Untitled when empty),
# its parent (the folder, else the shared drive, else root), the option
# Folder Color, and with Simplify Output off every field (fields=*). The
# item is the folder the API answers with. Written by flowctl import
# from its registry (importer/n8n/apps); every import writes the same
# file.
# https://developers.google.com/drive/api/reference/rest/v3/files/create
flow "google_drive_folder_create" {
  description = "Creates a Google Drive folder"
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
  description = "The folder's name; empty: Untitled"
}

input "folder_id" {
  type        = string
  default     = "root"
  description = "The parent folder; root: the drive's top"
}

input "drive_id" {
  type        = string
  default     = "My Drive"
  description = "The drive of the parent folder: My Drive or a shared drive's ID"
}

input "folder_color_rgb" {
  type        = string
  default     = ""
  description = "The folder's color, none when empty"
}

input "simplify_output" {
  type        = bool
  default     = true
  description = "Simplify Output: the API's default fields rather than every field"
}

locals {
  # n8n's setParentFolder: the folder, else the shared drive, else root.
  parent = input.folder_id != "root" ? input.folder_id : (input.drive_id != "" && input.drive_id != "My Drive" ? input.drive_id : "root")
  query  = { includeItemsFromAllDrives = "true", supportsAllDrives = "true", spaces = "appDataFolder, drive", corpora = "allDrives" }
}

step "create" {
  use     = "http"
  method  = "POST"
  url     = "${input.api_url}/drive/v3/files"
  query   = input.simplify_output ? local.query : merge(local.query, { fields = "*" })
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_drive}" }
  body = merge(
    { name = input.name == "" ? "Untitled" : input.name, mimeType = "application/vnd.google-apps.folder", parents = [local.parent] },
    input.folder_color_rgb == "" ? {} : { folderColorRgb = input.folder_color_rgb },
  )
}

output "items" {
  value       = [step.create.body]
  description = "The folder the API answers with: {kind, id, name, mimeType}"
}
