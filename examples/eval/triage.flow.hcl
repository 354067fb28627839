# The triage flow: a model classifies a support ticket and drafts a reply.
# triage.eval.hcl measures it on data/tickets.jsonl: flowctl eval examples/eval
# (docs/evals.md). Needs an OpenAI-compatible model to apply or evaluate.
flow "triage" {
  description = "Classify a support ticket and draft a reply"
}

input "ticket" {
  type        = string
  description = "The ticket's text"
  default     = "I was charged twice, please refund one payment."
}

step "classify" {
  use         = "llm"
  model       = "gpt-4o-mini"
  temperature = 0
  prompt      = "Classify this support ticket as billing, bug or other, and draft a short, polite reply.\n\nTicket: ${input.ticket}"
  output "category" {
    type        = string
    description = "billing, bug or other"
  }
  output "reply" {
    type        = string
    description = "a short, polite reply to the customer"
  }
}

output "category" {
  value = step.classify.category
}

output "reply" {
  value = step.classify.reply
}
