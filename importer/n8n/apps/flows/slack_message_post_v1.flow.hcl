# Slack: post a message — n8n's Slack node v1, Message → Post, as it
# builds the request (SlackV1.node.js: the channel, the text, the
# attachments, the sender's name from Send As User with an access token,
# the other options as they are; GenericFunctions.js slackApiRequest:
# ok = false is an error); the item is Slack's answer as it is. Written
# by flowctl import from its registry (importer/n8n/apps); every import
# writes the same file.
# https://api.slack.com/methods/chat.postMessage
flow "slack_message_post_v1" {
  description = "Posts a message to a Slack channel (n8n's Slack node v1)"
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
  type        = any
  description = "Where to post: a channel's ID or name, or a user's ID"
}

input "text" {
  type        = any
  default     = ""
  description = "The message's text"
}

input "attachments" {
  type        = any
  default     = []
  description = "The message's attachments: {title, text, image_url, color…} each"
}

input "username" {
  type        = any
  default     = null
  description = "The name the message is posted under (n8n's Send As User, with an access token)"
}

input "other_options" {
  type        = any
  default     = {}
  description = "The node's other options as n8n has them, sent as the body's fields: icon_emoji, icon_url, link_names, thread_ts, mrkdwn, reply_broadcast, unfurl_links, unfurl_media, sendAsUser"
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
  body = merge({ channel = input.channel, text = input.text }, input.username == null ? {} : { username = input.username }, { attachments = input.attachments }, input.other_options)
}

# Slack answers 200 with ok = false when it refuses the message: the
# error n8n's node fails with.
step "answer" {
  use   = "value"
  value = step.post.body.ok == false ? tobool("Slack error response: ${jsonencode(step.post.body)}") : step.post.body
}

output "items" {
  value       = [step.answer.value]
  description = "Slack's answer, as n8n's node v1 gives it: {ok, channel, ts, message}"
}
