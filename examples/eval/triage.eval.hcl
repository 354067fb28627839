# How well triage classifies tickets, and whether its replies are polite:
# flowctl eval examples/eval (docs/evals.md).
eval "triage" {
  flow    = "triage"
  dataset = "data/tickets.jsonl"
  inputs  = { ticket = row.text }

  variant "baseline" {}
  variant "short_prompt" {
    override "step.classify" {
      prompt = "Classify: ${input.ticket}"
    }
  }

  score "category" {
    kind     = "exact"
    value    = output.category
    expected = row.category
  }
  score "reply_quality" {
    kind   = "judge"
    model  = "gpt-4o-mini"
    rubric = "Is the reply polite and does it answer the ticket?"
    value  = output.reply
  }

  gate {
    score = "category"
    min   = 0.85
  }
}
