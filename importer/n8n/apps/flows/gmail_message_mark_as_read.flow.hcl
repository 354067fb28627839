# Gmail: mark a message as read — n8n's Gmail node v2, Message → Mark as
# Read. Written by flowctl import from its registry (importer/n8n/apps);
# every import writes the same file.
# https://developers.google.com/gmail/api/reference/rest/v1/users.messages/modify
flow "gmail_message_mark_as_read" {
  description = "Marks a Gmail message as read: removes its label UNREAD"
}

secret "gmail" {
  description = "An OAuth2 access token of the Google account n8n's Gmail credential stands for, with the scope https://www.googleapis.com/auth/gmail.modify; flowctl does not refresh it"
}

input "api_url" {
  type        = string
  default     = "https://www.googleapis.com"
  description = "The Gmail API's root URL"
}

input "message_id" {
  type        = string
  description = "The ID of the message"
}

step "modify" {
  use    = "http"
  method = "POST"
  url    = "${input.api_url}/gmail/v1/users/me/messages/${input.message_id}/modify"
  headers = {
    accept        = "application/json"
    authorization = "Bearer ${secret.gmail}"
  }
  body = { removeLabelIds = ["UNREAD"] }
}

output "items" {
  value       = [step.modify.body]
  description = "The message, as n8n's node gives it: its id, threadId and labelIds"
}
