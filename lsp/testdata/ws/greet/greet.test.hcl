test "greets" {
  flow = "greet.flow.hcl"
  override "step.post" {
    outputs = { status = 200, headers = {}, body = null, text = "" }
  }
  override "step.fetch" {
    outputs = { status = 200, headers = {}, body = null, text = "" }
  }
  mock "shout" {
    outputs = { text = upper(args.text) }
  }
  assert {
    condition     = output.greetings == ["Hello, Ada!", "Hello, Grace!"] && step.shout.text != ""
    error_message = "everyone is greeted"
  }
}
