# Mattermost: post a message — n8n's Mattermost node v1, Message → Post,
# as it builds the request (actions/message/post/execute.js: the
# channel, the message, the attachments as props, the other options;
# transport apiRequest: POST /api/v4/posts on the credential's server,
# Bearer token); the item is the post Mattermost answers with. Written by
# flowctl import from its registry (importer/n8n/apps); every import
# writes the same file.
# https://api.mattermost.com/#tag/posts/operation/CreatePost
flow "mattermost_message_post" {
  description = "Posts a message to a Mattermost channel"
}

secret "mattermost_url" {
  description = "The Mattermost server's URL (https://mattermost.example.com) of n8n's Mattermost credential, which the API's path /api/v4 follows"
}

secret "mattermost" {
  description = "The access token of n8n's Mattermost credential: a personal access token or a bot's"
}

input "channel_id" {
  type        = any
  description = "The channel's ID"
}

input "message" {
  type        = any
  default     = ""
  description = "The message's text (Markdown)"
}

input "attachments" {
  type        = any
  default     = []
  description = "The message attachments, as Mattermost reads them from props.attachments: {text, title, image_url, color…} each"
}

input "root_id" {
  type        = any
  default     = null
  description = "The ID of the post this one replies to, in its thread"
}

step "post" {
  use    = "http"
  method = "POST"
  # n8n removes one slash at the end of the server's URL.
  url = "${trimsuffix(secret.mattermost_url, "/")}/api/v4/posts"
  headers = {
    accept        = "application/json"
    authorization = "Bearer ${secret.mattermost}"
    content-type  = "application/json; charset=utf-8"
  }
  body = merge({
    channel_id = input.channel_id
    message    = input.message
    props      = { attachments = input.attachments }
  }, input.root_id == null ? {} : { root_id = input.root_id })
}

output "items" {
  value       = [step.post.body]
  description = "The post, as n8n's node gives it: {id, create_at, user_id, channel_id, message, props…}"
}
