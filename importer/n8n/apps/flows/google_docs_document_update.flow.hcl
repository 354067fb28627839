# Google Docs: update a document — n8n's Google Docs node v2, Document →
# Update, for one item, as it sends the request and shapes the answer
# (GoogleDocs.node.js): one batchUpdate of the actions, each Text →
# Insert (at the end of the body, or at an index; of a header's or
# footer's segment) or Text → Find and Replace Text. With Simplify (the
# default) the item is the first reply's value (empty for an insert)
# with the documentId, else the API's answer with it. Written by flowctl
# import from its registry (importer/n8n/apps); every import writes the
# same file.
# https://developers.google.com/docs/api/reference/rest/v1/documents/batchUpdate
flow "google_docs_document_update" {
  description = "Inserts or replaces text in a Google Docs document"
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
  description = "Simplify: the first reply's value rather than the whole answer"
}

input "actions" {
  type = list(object({
    action       = string
    text         = string
    location     = string
    segment_id   = string
    index        = number
    replace_text = string
    match_case   = bool
  }))
  default     = []
  description = "The actions, in order (none by default), each Text → insert (the text; location endOfSegmentLocation or location, the segment's ID, empty for the body, the index for location) or replaceAll (the text found, the text it is replaced with, whether case matters)"
}

input "write_control" {
  type        = map(string)
  default     = {}
  description = "The update's writeControl: requiredRevisionId or targetRevisionId"
}

locals {
  # n8n's extractID.
  id = try(regex("https://docs.google.com/document/d/([a-zA-Z0-9-_]+)/", input.document)[0], input.document)
  requests = [for a in input.actions : merge(concat(
    [for x in [a] : { insertText = {
      text         = x.text
      (x.location) = merge(concat([{ segmentId = x.segment_id }], [for l in [x.location] : { index = x.index } if l == "location"])...)
    } } if x.action == "insert"],
    [for x in [a] : { replaceAllText = { replaceText = x.replace_text, containsText = { text = x.text, matchCase = x.match_case } } } if x.action == "replaceAll"],
  )...)]
}

step "update" {
  use     = "http"
  method  = "POST"
  url     = "${input.api_url}/v1/documents/${local.id}:batchUpdate"
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_docs}" }
  body = merge(
    { requests = local.requests },
    length(input.write_control) > 0 ? { writeControl = input.write_control } : {},
  )
}

output "items" {
  value = [merge(concat(
    [for s in [input.simple] : merge(values(step.update.body.replies[0])...) if s],
    [for s in [input.simple] : step.update.body if !s],
    [{ documentId = local.id }],
  )...)]
  description = "The first reply's value with the documentId, or with simple = false the API's answer {replies, writeControl, documentId}"
}
