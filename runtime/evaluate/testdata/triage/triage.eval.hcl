eval "triage" {
  flow    = "triage"
  dataset = "data/tickets.jsonl"
  inputs  = { ticket = row.text }

  variant "baseline" {}
  variant "weak" {
    override "step.classify" {
      model = "weak"
    }
  }

  score "category" {
    kind     = "exact"
    value    = output.category
    expected = row.category
  }
  score "thanks" {
    kind     = "contains"
    value    = output.reply
    expected = "Thank you"
  }
  score "known" {
    kind    = "regex"
    value   = output.category
    pattern = "^(billing|bug)$"
  }
  score "shape" {
    kind   = "json_schema"
    value  = { category = output.category }
    schema = { type = "object", required = ["category"], properties = { category = { enum = ["billing", "bug"] } } }
  }
  score "length" {
    kind      = "numeric"
    value     = output.length
    expected  = row.n
    tolerance = 1
  }
  score "close" {
    kind      = "similarity"
    value     = output.category
    expected  = row.category
    model     = "letters"
    threshold = 0.99
  }
  score "polite" {
    kind   = "judge"
    model  = "judge"
    rubric = "Is the reply polite?"
    value  = output.reply
  }
  score "polite_pf" {
    kind   = "judge"
    model  = "judge"
    rubric = "Is the reply polite?"
    scale  = "pass_fail"
    value  = output.category
  }

  gate {
    score = "category"
    min   = 0.7
  }
}
