# A chat that remembers: each run answers one message, and the
# conversation of its session is kept in a memory across runs, so the
# model sees the earlier turns. Run it once per message:
#
#   flowctl apply --auto-approve examples/chat --input session=ann --input message="I am Ann."
#   flowctl apply --auto-approve examples/chat --input session=ann --input message="What is my name?"
#
# Needs OPENAI_API_KEY, or OPENAI_BASE_URL pointing at a local
# OpenAI-compatible server such as Ollama
# (OPENAI_BASE_URL=http://localhost:11434/v1 FLOWCTL_MODEL=llama3.2).
flow "chat" {
  description = "Answer a message in a conversation remembered across runs, one conversation per session"
}

input "session" {
  type        = string
  default     = "default"
  description = "The conversation the message belongs to"
}

input "message" {
  type        = string
  default     = "Hello! What can you do?"
  description = "What the user says"
}

locals {
  # The earlier turns of this session, oldest first.
  history = lookup(memory.conversations, input.session, [])
}

# One conversation per session. The new value is computed from
# memory.conversations itself (not from local.history): when runs of two
# sessions, or two runs of one, end at once, each stores its turn on top
# of the other's. The last 40 messages of a session are kept.
memory "conversations" {
  type        = map(list(object({ role = string, content = string })))
  default     = {}
  description = "The messages of each session's conversation"
  value = merge(memory.conversations, {
    (input.session) = [
      for i, m in concat(lookup(memory.conversations, input.session, []), [
        { role = "user", content = input.message },
        { role = "assistant", content = step.reply.text },
      ]) : m if i + 40 >= length(lookup(memory.conversations, input.session, [])) + 2
    ]
  })
}

step "reply" {
  use         = "llm"
  system      = "You are a friendly, concise assistant. Use what the user told you earlier in the conversation."
  messages    = local.history
  prompt      = input.message
  temperature = 0
}

output "reply" {
  value = step.reply.text
}

output "turns" {
  value       = length(local.history) / 2 + 1
  description = "How many messages the user has sent in this session, this one included"
}
