# Gmail: get many messages — n8n's Gmail node v2, Message → Get Many,
# Simplify on, for one item, as it builds the requests (GmailV2.node.js,
# getAll; GenericFunctions.js: prepareQuery, googleApiRequestAllItems,
# simplifyOutput, unescapeSnippets): the list of messages the filters
# select (at most limit, or with Return All every page, 100 messages a
# page, following nextPageToken), then each message's metadata (its
# From, To, Cc, Bcc and Subject headers) and the account's labels. The
# items are the messages, their headers as fields and their labels'
# names beside the IDs, as n8n's node gives them. Written by flowctl
# import from its registry (importer/n8n/apps); every import writes the
# same file.
# https://developers.google.com/gmail/api/reference/rest/v1/users.messages/list
# https://developers.google.com/gmail/api/reference/rest/v1/users.messages/get
flow "gmail_message_get_many" {
  description = "Lists Gmail messages with their headers and labels"
}

secret "gmail" {
  description = "An OAuth2 access token of the Google account n8n's Gmail credential stands for, with the scope https://www.googleapis.com/auth/gmail.modify; flowctl does not refresh it"
}

input "api_url" {
  type        = string
  default     = "https://www.googleapis.com"
  description = "The Gmail API's root URL"
}

input "return_all" {
  type        = bool
  default     = false
  description = "Whether to get every message the filters select, page by page, or at most limit"
}

input "limit" {
  type        = number
  default     = 50
  description = "At most this many messages, without return_all"
}

input "q" {
  type        = string
  default     = ""
  description = "Gmail's search query (the Search filter)"
}

input "sender" {
  type        = string
  default     = ""
  description = "The Sender filter: from:SENDER added to the query"
}

input "read_status" {
  type        = string
  default     = "both"
  description = "The Read Status filter: unread or read adds is:STATUS to the query; both adds nothing"
}

input "label_ids" {
  type        = list(string)
  default     = []
  description = "The Label Names or IDs filter: messages with all these labels"
}

input "include_spam_trash" {
  type        = any
  default     = null
  description = "The Include Spam and Trash filter, sent as includeSpamTrash when set"
}

locals {
  # prepareQuery: the sender, then the read status, after the search.
  q1 = input.sender == "" ? input.q : (input.q == "" ? "from:${input.sender}" : "${input.q} from:${input.sender}")
  q  = input.read_status == "both" ? local.q1 : (local.q1 == "" ? "is:${input.read_status}" : "${local.q1} is:${input.read_status}")
  query = merge(
    local.q == "" ? {} : { q = local.q },
    input.include_spam_trash == null ? {} : { includeSpamTrash = tostring(input.include_spam_trash) },
  )
  # labelIds repeated, as n8n's arrayFormat repeat sends a list.
  labels = join("", [for l in input.label_ids : "&labelIds=${urlencode(l)}"])
  url    = "${input.api_url}/gmail/v1/users/me/messages"
  headers = {
    accept        = "application/json"
    authorization = "Bearer ${secret.gmail}"
  }
  max = input.return_all ? "100" : tostring(input.limit)
}

step "page_1" {
  use     = "http"
  url     = "${local.url}?maxResults=${local.max}${local.labels}"
  query   = local.query
  headers = local.headers
}

step "page_2" {
  use     = "http"
  when    = input.return_all && try(step.page_1.body.nextPageToken, "") != ""
  url     = "${local.url}?maxResults=100${local.labels}"
  query   = merge(local.query, { pageToken = try(step.page_1.body.nextPageToken, "") })
  headers = local.headers
}

step "page_3" {
  use     = "http"
  when    = input.return_all && try(step.page_2.body.nextPageToken, "") != ""
  url     = "${local.url}?maxResults=100${local.labels}"
  query   = merge(local.query, { pageToken = try(step.page_2.body.nextPageToken, "") })
  headers = local.headers
}

step "page_4" {
  use     = "http"
  when    = input.return_all && try(step.page_3.body.nextPageToken, "") != ""
  url     = "${local.url}?maxResults=100${local.labels}"
  query   = merge(local.query, { pageToken = try(step.page_3.body.nextPageToken, "") })
  headers = local.headers
}

step "page_5" {
  use     = "http"
  when    = input.return_all && try(step.page_4.body.nextPageToken, "") != ""
  url     = "${local.url}?maxResults=100${local.labels}"
  query   = merge(local.query, { pageToken = try(step.page_4.body.nextPageToken, "") })
  headers = local.headers
}

# More pages than the flow reads: it fails rather than give part of them.
step "all_read" {
  use   = "value"
  value = input.return_all && try(step.page_5.body.nextPageToken, "") != "" ? tobool("the account has more than 500 messages the filters select: this flow reads 5 pages of 100; add pages to it") : true
}

locals {
  listed = flatten([for p in [step.page_1, step.page_2, step.page_3, step.page_4, step.page_5] : try(p.body.messages, [])])
}

step "message" {
  use      = "http"
  for_each = step.all_read.value ? local.listed : []
  # n8n sends the list's query again, with the format.
  url     = "${local.url}/${each.value.id}?maxResults=${local.max}${local.labels}&format=metadata&metadataHeaders=From&metadataHeaders=To&metadataHeaders=Cc&metadataHeaders=Bcc&metadataHeaders=Subject"
  query   = local.query
  headers = local.headers
}

step "labels" {
  use     = "http"
  url     = "${input.api_url}/gmail/v1/users/me/labels"
  headers = local.headers
}

locals {
  all_labels = [for l in try(step.labels.body.labels, []) : { id = l.id, name = l.name }]
  # simplifyOutput: labelIds become labels (the account's, in its order),
  # each header a field (the last of a name), the payload without its
  # headers; unescapeSnippets: the snippet's HTML entities decoded.
  items = [for m in [for r in step.message : r.body] : merge(
    { for k, v in m : k => v if k != "labelIds" && k != "payload" && k != "snippet" },
    try(m.snippet, "") == "" ? { for k, v in m : k => v if k == "snippet" } : {
      snippet = replace(replace(replace(replace(replace(m.snippet, "&lt;", "<"), "&gt;", ">"), "&#39;", "'"), "&quot;", "\""), "&amp;", "&")
    },
    can(m.payload) ? { payload = { for k, v in m.payload : k => v if !(k == "headers" && v != null) } } : {},
    try(m.labelIds, null) == null ? {} : { labels = [for l in local.all_labels : l if contains(m.labelIds, l.id)] },
    { for k, vs in { for h in try(m.payload.headers, []) : h.name => h.value... } : k => vs[length(vs) - 1] },
  )]
}

output "items" {
  value       = local.items
  description = "The messages, as n8n's node gives them: id, threadId, snippet, payload, sizeEstimate, historyId, internalDate, labels and the From, To, Cc, Bcc and Subject headers"
}
