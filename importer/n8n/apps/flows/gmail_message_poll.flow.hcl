# Gmail: the messages received since the last poll — n8n's Gmail Trigger
# (GmailTrigger.node.js, poll; GenericFunctions.js: prepareQuery,
# prepareTimestamp, simplifyOutput), Simplify on, as one poll builds the
# requests: the list of the messages the filters select received after
# the time the state keeps (its lastTimeChecked, in seconds; on the first
# poll, when nothing is kept, the time now, as n8n starts), one page,
# then each message's metadata and the account's labels. Drafts are left
# out unless include_drafts; from n8n's version 1.3 sent messages not in
# the inbox too. The messages the last poll fetched (the state's
# possibleDuplicates) are not given again. The output state is what n8n
# keeps in its static data: the newest message's time and the IDs of the
# messages fetched, or, when the list is empty, the time the poll read
# (an imported flow keeps it in a memory: stored when its run succeeds).
# n8n reads a stored time with a fraction (Gmail's internalDate in
# milliseconds / 1000) as milliseconds in its query's after: (1718371234.5
# gives after:1718371), and so does this flow. Written by flowctl import
# from its registry (importer/n8n/apps); every import writes the same
# file.
# https://developers.google.com/gmail/api/reference/rest/v1/users.messages/list
flow "gmail_message_poll" {
  description = "Lists the Gmail messages received since the last poll, with their headers and labels"
}

secret "gmail" {
  description = "An OAuth2 access token of the Google account n8n's Gmail credential stands for, with the scope https://www.googleapis.com/auth/gmail.modify; flowctl does not refresh it"
}

input "api_url" {
  type        = string
  default     = "https://www.googleapis.com"
  description = "The Gmail API's root URL"
}

input "state" {
  type        = any
  default     = null
  description = "What the last poll kept: { lastTimeChecked = seconds, possibleDuplicates = [message IDs] }; null before the first poll"
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
  default     = ""
  description = "The Read Status filter: unread or read adds is:STATUS to the query; both is sent as readStatus=both, as n8n sends it"
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

input "include_drafts" {
  type        = any
  default     = null
  description = "The Include Drafts filter, sent as includeDrafts with the list when set"
}

input "drafts" {
  type        = bool
  default     = false
  description = "Whether drafts are given (the Include Drafts filter; unset, true up to n8n's version 1.1, false after)"
}

input "skip_sent" {
  type        = bool
  default     = false
  description = "Whether sent messages not in the inbox are left out (n8n's version 1.3)"
}

step "clock" {
  use   = "poll_clock"
  cache = false
}

locals {
  start = try(input.state.lastTimeChecked, null) != null ? input.state.lastTimeChecked : step.clock.seconds
  # prepareTimestamp: a whole number of seconds as it is; a number with a
  # fraction is read as milliseconds (luxon's fromMillis of its integer).
  after = floor(local.start) == local.start && local.start < 100000000000 ? local.start : floor(floor(local.start) / 1000)
  # prepareQuery: the sender, the read status, then the time, after the search.
  q = join(" ", compact([
    input.q,
    input.sender == "" ? "" : "from:${input.sender}",
    contains(["", "both"], input.read_status) ? "" : "is:${input.read_status}",
    "after:${local.after}",
  ]))
  query = merge(
    { q = local.q },
    input.read_status == "both" ? { readStatus = "both" } : {},
    input.include_spam_trash == null ? {} : { includeSpamTrash = tostring(input.include_spam_trash) },
  )
  # labelIds repeated, as n8n's arrayFormat repeat sends a list.
  labels = join("", [for l in input.label_ids : "&labelIds=${urlencode(l)}"])
  url    = "${input.api_url}/gmail/v1/users/me/messages"
  headers = {
    accept        = "application/json"
    authorization = "Bearer ${secret.gmail}"
  }
}

step "list" {
  use     = "http"
  url     = length(input.label_ids) == 0 ? local.url : "${local.url}?${join("&", [for l in input.label_ids : "labelIds=${urlencode(l)}"])}"
  query   = merge(local.query, input.include_drafts == null ? {} : { includeDrafts = tostring(input.include_drafts) })
  headers = local.headers
}

step "message" {
  use      = "http"
  for_each = try(step.list.body.messages, null) == null ? [] : step.list.body.messages
  # n8n sends the list's query again (without includeDrafts), with the format.
  url     = "${local.url}/${each.value.id}?format=metadata&metadataHeaders=From&metadataHeaders=To&metadataHeaders=Cc&metadataHeaders=Bcc&metadataHeaders=Subject${local.labels}"
  query   = local.query
  headers = local.headers
}

locals {
  fetched = [for r in step.message : r.body]
}

step "labels" {
  use     = "http"
  when    = length(local.fetched) > 0
  url     = "${input.api_url}/gmail/v1/users/me/labels"
  headers = local.headers
}

locals {
  all_labels = [for l in try(step.labels.body.labels, []) : { id = l.id, name = l.name }]
  kept = [for m in local.fetched : m if !(
    !input.drafts && contains(try(m.labelIds, []), "DRAFT") ||
    input.skip_sent && contains(try(m.labelIds, []), "SENT") && !contains(try(m.labelIds, []), "INBOX")
  )]
  # simplifyOutput: labelIds become labels (the account's, in its order),
  # each header a field (the last of a name), the payload without its
  # headers.
  simplified = [for m in local.kept : merge(
    { for k, v in m : k => v if k != "labelIds" && k != "payload" },
    can(m.payload) ? { payload = { for k, v in m.payload : k => v if !(k == "headers" && v != null) } } : {},
    try(m.labelIds, null) == null ? {} : { labels = [for l in local.all_labels : l if contains(m.labelIds, l.id)] },
    { for k, vs in { for h in try(m.payload.headers, []) : h.name => h.value... } : k => vs[length(vs) - 1] },
  )]
  # Each message's time (internalDate / 1000); one without a time counts
  # at the poll's start, its ID kept.
  dates   = [for m in local.fetched : try(tonumber(m.internalDate) / 1000, 0)]
  times   = [for d in local.dates : d == 0 ? local.start : d]
  last    = max(concat([0], local.times)...)
  invalid = distinct([for i, m in local.fetched : m.id if local.dates[i] == 0])
  seen    = try(input.state.possibleDuplicates, null) == null ? [] : input.state.possibleDuplicates
  items   = length(local.seen) == 0 ? local.simplified : [for m in local.simplified : m if try(m.id, null) != null && !contains(local.seen, try(m.id, ""))]
}

output "items" {
  value       = local.items
  description = "The new messages, as n8n's trigger gives them: id, threadId, snippet, payload, sizeEstimate, historyId, internalDate, labels and the From, To, Cc, Bcc and Subject headers"
}

output "state" {
  value = length(local.fetched) == 0 ? { lastTimeChecked = local.start, possibleDuplicates = local.seen } : {
    lastTimeChecked    = local.last
    possibleDuplicates = concat(local.invalid, [for i, m in local.fetched : m.id if local.times[i] <= local.last])
  }
  description = "What the next poll reads: the newest message's time and the IDs of the messages fetched"
}
