# Discord: send a message through a webhook — n8n's Discord node v2,
# Connection Type Webhook, Send a Message (sendLegacy.operation.js: the
# content and the options, the flags as prepareOptions reads them, wait
# in the query when set; discordApiRequest: POST to the credential's
# webhook URL, JSON); the item is Discord's answer, {success: true} when
# it answers with nothing (without wait, 204). Written by flowctl import
# from its registry (importer/n8n/apps); every import writes the same
# file.
# https://discord.com/developers/docs/resources/webhook#execute-webhook
flow "discord_webhook_message_send" {
  description = "Sends a message to a Discord channel through a webhook"
}

secret "discord_webhook_url" {
  description = "The webhook URL of n8n's Discord Webhook credential (https://discord.com/api/webhooks/ID/TOKEN): whoever holds it posts to the channel"
}

input "content" {
  type        = any
  default     = ""
  description = "The message's text"
}

input "options" {
  type        = any
  default     = {}
  description = "The node's options as n8n has them: avatar_url, username, tts, flags (SUPPRESS_EMBEDS, SUPPRESS_NOTIFICATIONS), wait"
}

locals {
  flags = try(input.options.flags, null)
  # prepareOptions: both flags, or either, as Discord's bits; other
  # values as they are.
  flag_bits = local.flags == null ? null : jsondecode(length(local.flags) == 2 ? "4100" : contains(local.flags, "SUPPRESS_EMBEDS") ? "4" : contains(local.flags, "SUPPRESS_NOTIFICATIONS") ? "4096" : jsonencode(local.flags))
  wait      = try(input.options.wait, null)
  # wait goes to the query when it is one JavaScript holds true, and stays
  # in the body otherwise, as n8n does.
  wait_set = !(local.wait == null || local.wait == false || local.wait == "" || local.wait == 0)
  options = merge(
    { for k, v in input.options : k => v if k != "flags" && !(k == "wait" && local.wait_set) },
    local.flags == null ? {} : { flags = local.flag_bits },
  )
}

step "send" {
  use     = "http"
  method  = "POST"
  url     = secret.discord_webhook_url
  query   = local.wait_set ? { wait = tostring(local.wait) } : {}
  headers = { accept = "application/json", content-type = "application/json" }
  body    = merge({ content = input.content }, local.options)
}

output "items" {
  # n8n gives Discord's answer, or {success: true} for one that
  # JavaScript holds false (an empty body).
  value       = [jsondecode(step.send.body == null || step.send.body == "" || step.send.body == false || step.send.body == 0 ? jsonencode({ success = true }) : jsonencode(step.send.body))]
  description = "Discord's answer, as n8n's node gives it: the message with wait, else {success: true}"
}
