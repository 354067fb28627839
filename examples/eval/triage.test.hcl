test "a billing ticket" {
  inputs = { ticket = "Please refund my last invoice." }

  override "step.classify" {
    outputs = { category = "billing", reply = "Thank you, we will refund it." }
  }

  assert {
    condition     = output.category == "billing"
    error_message = "The ticket should be billing."
  }
}
