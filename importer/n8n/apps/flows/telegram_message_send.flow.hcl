# Telegram: send a text message — n8n's Telegram node, Message → Send
# Message, as it builds the request (addAdditionalFields). Written by
# flowctl import from its registry (importer/n8n/apps); every import
# writes the same file.
# https://core.telegram.org/bots/api#sendmessage
flow "telegram_message_send" {
  description = "Sends a text message with a Telegram bot"
}

secret "telegram" {
  description = "The token of the Telegram bot n8n's Telegram credential stands for, as @BotFather gives it"
}

input "api_url" {
  type        = string
  default     = "https://api.telegram.org"
  description = "The Bot API's root URL (n8n's credential's Base URL)"
}

input "chat_id" {
  type        = any
  description = "The chat: its ID (a number) or a channel's @username"
}

input "text" {
  type        = string
  description = "The message's text"
}

input "parse_mode" {
  type        = string
  default     = "Markdown"
  description = "How Telegram reads the text: Markdown (n8n's default), MarkdownV2 or HTML"
}

input "disable_web_page_preview" {
  type        = bool
  default     = null
  description = "Whether to show no preview of the text's links; null: none when the text has no link, as n8n sends it"
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

input "append_attribution" {
  type        = bool
  default     = false
  description = "Whether to end the text with n8n's \"This message was sent automatically with n8n\" and its link, as n8n's node does from v1.1 unless told not to"
}

locals {
  # n8n's test of a text with a link: no preview when it has none.
  space    = "\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}"
  has_link = length(regexall("(https?|ftp|file)://[^${local.space}]+|www\\.[^${local.space}]+|[^${local.space}]+\\.[^${local.space}]+", input.text)) > 0
  link     = "https://n8n.io/?utm_source=n8n-internal&utm_medium=powered_by&utm_campaign=n8n-nodes-base.telegram"
  text = (!input.append_attribution ? input.text
    : input.parse_mode == "Markdown" ? "${input.text}\n\n_This message was sent automatically with _[n8n](${local.link})"
    : input.parse_mode == "HTML" ? "${input.text}\n\n<em>This message was sent automatically with </em><a href=\"${local.link}\" target=\"_blank\">n8n</a>"
  : input.text)
  fields = {
    chat_id                  = input.chat_id
    text                     = local.text
    parse_mode               = input.parse_mode
    disable_web_page_preview = input.disable_web_page_preview != null ? input.disable_web_page_preview : (local.has_link ? null : true)
    disable_notification     = input.disable_notification
    reply_to_message_id      = input.reply_to_message_id
    message_thread_id        = input.message_thread_id
    reply_markup             = input.reply_markup
  }
}

step "send" {
  use    = "http"
  method = "POST"
  url    = "${input.api_url}/bot${secret.telegram}/sendMessage"
  headers = {
    accept = "application/json"
  }
  body = { for k, v in local.fields : k => v if v != null }
}

output "items" {
  value       = [step.send.body]
  description = "The Bot API's answer, as n8n's node gives it: {ok, result = the message sent}"
}
