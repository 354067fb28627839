# Telegram: delete a message — n8n's Telegram node, Message → Delete Chat
# Message. Written by flowctl import from its registry
# (importer/n8n/apps); every import writes the same file.
# https://core.telegram.org/bots/api#deletemessage
flow "telegram_message_delete" {
  description = "Deletes a message of a Telegram chat"
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

input "message_id" {
  type        = number
  description = "The ID of the message to delete"
}

step "delete" {
  use    = "http"
  method = "POST"
  url    = "${input.api_url}/bot${secret.telegram}/deleteMessage"
  headers = {
    accept = "application/json"
  }
  body = { chat_id = input.chat_id, message_id = input.message_id }
}

output "items" {
  value       = [step.delete.body]
  description = "The Bot API's answer, as n8n's node gives it: {ok, result = true}"
}
