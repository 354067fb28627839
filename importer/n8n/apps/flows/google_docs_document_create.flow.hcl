# Google Docs: create a document — n8n's Google Docs node v2, Document →
# Create, for one item, as it sends the request (GoogleDocs.node.js): a
# Drive file of type Google Docs named the title, in the folder unless
# it is empty or "default" (My Drive). The item is the file the Drive
# API answers with. Written by flowctl import from its registry
# (importer/n8n/apps); every import writes the same file.
# https://developers.google.com/drive/api/reference/rest/v3/files/create
flow "google_docs_document_create" {
  description = "Creates a Google Docs document"
}

secret "google_docs" {
  description = "An OAuth2 access token of the Google account n8n's Google Docs credential stands for, with the scopes https://www.googleapis.com/auth/documents and https://www.googleapis.com/auth/drive; flowctl does not refresh it"
}

input "api_url" {
  type        = string
  default     = "https://www.googleapis.com"
  description = "The Drive API's root URL"
}

input "title" {
  type        = string
  description = "The document's title"
}

input "folder_id" {
  type        = string
  default     = ""
  description = "The folder the document is created in; empty or default: My Drive"
}

step "create" {
  use     = "http"
  method  = "POST"
  url     = "${input.api_url}/drive/v3/files"
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_docs}" }
  body = merge(
    { name = input.title, mimeType = "application/vnd.google-apps.document" },
    input.folder_id == "" || input.folder_id == "default" ? {} : { parents = [input.folder_id] },
  )
}

output "items" {
  value       = [step.create.body]
  description = "The file the Drive API answers with: {kind, id, name, mimeType}"
}
