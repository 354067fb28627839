# Slack: post a message — n8n's Slack node v2, Message → Send, as it
# builds the request (getMessageContent, chat.postMessage) and reads the
# answer (slackApiRequest: ok = false is an error, ts is renamed
# message_timestamp). Written by flowctl import from its registry
# (importer/n8n/apps); every import writes the same file.
# https://api.slack.com/methods/chat.postMessage
flow "slack_message_post" {
  description = "Posts a message to a Slack channel or user"
}

secret "slack" {
  description = "A Slack token of n8n's Slack credential, with the scope chat:write: a bot token (xoxb-…) or an OAuth2 access token, which flowctl does not refresh"
}

input "api_url" {
  type        = string
  default     = "https://slack.com/api"
  description = "The Web API's root URL"
}

input "channel" {
  type        = string
  description = "Where to post: a channel's ID or #name, or a user's ID or @name (their direct messages)"
}

input "text" {
  type        = string
  default     = null
  description = "The message's text; with blocks, the notification's text (left out when empty)"
}

input "blocks" {
  type        = any
  default     = null
  description = "A Block Kit message: an object of blocks (and attachments…), or its JSON text, whose fields the request takes"
}

input "mrkdwn" {
  type        = bool
  default     = null
  description = "Whether Slack reads the text's markup"
}

input "link_names" {
  type        = bool
  default     = null
  description = "Whether to link the channel and user names in the text"
}

input "unfurl_links" {
  type        = bool
  default     = null
  description = "Whether to show previews of links to text-based content"
}

input "unfurl_media" {
  type        = bool
  default     = null
  description = "Whether to show previews of links to media"
}

input "thread_ts" {
  type        = string
  default     = null
  description = "The timestamp of the message whose thread this one answers"
}

input "reply_broadcast" {
  type        = bool
  default     = null
  description = "Whether a reply in a thread is also posted to the channel"
}

input "username" {
  type        = string
  default     = null
  description = "The name the message is posted under (a bot token's)"
}

input "icon_emoji" {
  type        = string
  default     = null
  description = "The emoji shown as the poster's picture"
}

input "icon_url" {
  type        = string
  default     = null
  description = "The URL of the image shown as the poster's picture"
}

locals {
  blocks = input.blocks == null ? null : try(jsondecode(input.blocks), input.blocks)
  text   = input.blocks == null || input.text != "" ? input.text : null
  options = {
    channel         = input.channel
    text            = local.text
    mrkdwn          = input.mrkdwn
    link_names      = input.link_names
    unfurl_links    = input.unfurl_links
    unfurl_media    = input.unfurl_media
    thread_ts       = input.thread_ts
    reply_broadcast = input.reply_broadcast
    username        = input.username
    icon_emoji      = input.icon_emoji
    icon_url        = input.icon_url
  }
}

step "post" {
  use    = "http"
  method = "POST"
  url    = "${input.api_url}/chat.postMessage"
  headers = {
    accept        = "application/json"
    authorization = "Bearer ${secret.slack}"
    content-type  = "application/json; charset=utf-8"
  }
  body = merge(local.blocks == null ? {} : local.blocks, { for k, v in local.options : k => v if v != null })
}

# Slack answers 200 with ok = false when it refuses the message: the
# error n8n's node fails with.
step "answer" {
  use   = "value"
  value = step.post.body.ok == false ? tobool("Slack error response: ${jsonencode(step.post.body.error)}") : step.post.body
}

output "items" {
  value = [merge({ for k, v in step.answer.value : k => v if k != "ts" },
  contains(keys(step.answer.value), "ts") ? { message_timestamp = step.answer.value.ts } : {})]
  description = "Slack's answer, as n8n's node gives it: {ok, channel, message, message_timestamp}"
}
