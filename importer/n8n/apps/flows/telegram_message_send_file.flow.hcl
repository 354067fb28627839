# Telegram: send a photo, video, audio, document, animation or sticker by
# its URL or file_id — n8n's Telegram node, Message → Send Photo (Send
# Video…) without binary data, as it builds the request (the additional
# fields as they are, addAdditionalFields' reply markup). Written by
# flowctl import from its registry (importer/n8n/apps); every import
# writes the same file.
# https://core.telegram.org/bots/api#sendphoto
flow "telegram_message_send_file" {
  description = "Sends a file a Telegram bot gives by URL or file_id: a photo, video, audio, document, animation or sticker"
}

secret "telegram" {
  description = "The token of the Telegram bot n8n's Telegram credential stands for, as @BotFather gives it"
}

input "api_url" {
  type        = string
  default     = "https://api.telegram.org"
  description = "The Bot API's root URL (n8n's credential's Base URL)"
}

input "kind" {
  type        = string
  description = "What the file is: photo, video, audio, document, animation or sticker (the Bot API's method sendPhoto… and the body's field)"
}

input "chat_id" {
  type        = any
  description = "The chat: its ID (a number) or a channel's @username"
}

input "file" {
  type        = string
  description = "The file: a URL Telegram downloads, or the file_id of a file Telegram has"
}

input "caption" {
  type        = string
  default     = null
  description = "The caption under the file"
}

input "parse_mode" {
  type        = string
  default     = null
  description = "How Telegram reads the caption: Markdown, MarkdownV2 or HTML"
}

input "disable_notification" {
  type        = bool
  default     = null
  description = "Whether the message arrives silently"
}

input "reply_to_message_id" {
  type        = number
  default     = null
  description = "The ID of the message this one answers"
}

input "message_thread_id" {
  type        = number
  default     = null
  description = "The topic of a forum the message goes to"
}

input "reply_markup" {
  type        = any
  default     = null
  description = "An inline keyboard, a reply keyboard, a keyboard removal or a forced reply, as the Bot API takes it"
}

locals {
  fields = {
    chat_id              = input.chat_id
    caption              = input.caption
    parse_mode           = input.parse_mode
    disable_notification = input.disable_notification
    reply_to_message_id  = input.reply_to_message_id
    message_thread_id    = input.message_thread_id
    reply_markup         = input.reply_markup
  }
}

step "send" {
  use    = "http"
  method = "POST"
  url    = "${input.api_url}/bot${secret.telegram}/send${title(input.kind)}"
  headers = {
    accept = "application/json"
  }
  body = merge({ for k, v in local.fields : k => v if v != null }, { (input.kind) = input.file })
}

output "items" {
  value       = [step.send.body]
  description = "The Bot API's answer, as n8n's node gives it: {ok, result = the message sent}"
}
