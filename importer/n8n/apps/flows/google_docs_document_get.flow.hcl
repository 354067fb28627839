# Google Docs: get a document — n8n's Google Docs node v2, Document →
# Get, for one item, as it sends the request and shapes the answer
# (GoogleDocs.node.js): the document's ID is the one in a
# https://docs.google.com/document/d/ID/ URL, else the text as it is;
# with Simplify (the default) the item is {documentId, content}, the text
# runs of the body's paragraphs joined, else the document as the API
# answers. Written by flowctl import from its registry
# (importer/n8n/apps); every import writes the same file.
# https://developers.google.com/docs/api/reference/rest/v1/documents/get
flow "google_docs_document_get" {
  description = "Gets a Google Docs document, or its text"
}

secret "google_docs" {
  description = "An OAuth2 access token of the Google account n8n's Google Docs credential stands for, with the scopes https://www.googleapis.com/auth/documents and https://www.googleapis.com/auth/drive; flowctl does not refresh it"
}

input "api_url" {
  type        = string
  default     = "https://docs.googleapis.com"
  description = "The Docs API's root URL"
}

input "document" {
  type        = string
  description = "The document's ID or URL"
}

input "simple" {
  type        = bool
  default     = true
  description = "Simplify: the document's ID and text rather than the whole document"
}

locals {
  # n8n's extractID.
  id = try(regex("https://docs.google.com/document/d/([a-zA-Z0-9-_]+)/", input.document)[0], input.document)
}

step "get" {
  use     = "http"
  url     = "${input.api_url}/v1/documents/${local.id}"
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_docs}" }
}

output "items" {
  # Simplify: the text runs of the body's paragraphs (n8n's reduce).
  value = concat(
    [for s in [input.simple] : {
      documentId = local.id
      content = join("", flatten([
        for c in step.get.body.body.content : [
          for e in c.paragraph.elements : try(e.textRun.content, "")
        ] if try(c.paragraph, null) != null
      ]))
    } if s],
    [for s in [input.simple] : step.get.body if !s],
  )
  description = "{documentId, content}, or with simple = false the document as the API answers"
}
