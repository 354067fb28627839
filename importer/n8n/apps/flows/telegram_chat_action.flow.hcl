# Telegram: show a chat action (typing…) — n8n's Telegram node, Message →
# Send Chat Action. Written by flowctl import from its registry
# (importer/n8n/apps); every import writes the same file.
# https://core.telegram.org/bots/api#sendchataction
flow "telegram_chat_action" {
  description = "Tells a Telegram chat that the bot is doing something (typing, uploading a photo…)"
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

input "action" {
  type        = string
  default     = "typing"
  description = "The action: typing, upload_photo, record_video, upload_video, record_voice, upload_voice, upload_document, choose_sticker, find_location, record_video_note or upload_video_note"
}

step "action" {
  use    = "http"
  method = "POST"
  url    = "${input.api_url}/bot${secret.telegram}/sendChatAction"
  headers = {
    accept = "application/json"
  }
  body = { chat_id = input.chat_id, action = input.action }
}

output "items" {
  value       = [step.action.body]
  description = "The Bot API's answer, as n8n's node gives it: {ok, result = true}"
}
