# flowctl test examples/chat: the model is mocked. Each test starts with
# an empty memory, so this is the first turn of a session; the test of
# apply run twice (cmd/flowctl/cli/chat_test.go) checks the second.
test "the first message of a session" {
  inputs = { session = "ann", message = "My name is Ann." }
  mock "llm" {
    outputs = { text = "Hello! ${length(args.messages)} earlier messages; you said: ${args.prompt}" }
  }
  assert {
    condition     = output.reply == "Hello! 0 earlier messages; you said: My name is Ann."
    error_message = "the model is asked the message, with no earlier turns"
  }
  assert {
    condition     = output.turns == 1
    error_message = "the first turn of the session"
  }
}
