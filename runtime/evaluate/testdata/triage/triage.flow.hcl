flow "triage" {}

input "ticket" {
  type = string
}

step "classify" {
  use    = "llm"
  model  = "good"
  prompt = "Ticket: ${input.ticket}"
  output "category" {
    type = string
  }
  output "reply" {
    type = string
  }
}

output "category" {
  value = step.classify.category
}

output "reply" {
  value = step.classify.reply
}

output "length" {
  value = length(input.ticket)
}
