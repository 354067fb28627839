# flowctl test examples/hello
test "everyone is greeted" {
  assert {
    condition     = output.greetings == ["Hello, Ada!", "Hello, Grace!", "Hello, Linus!"]
    error_message = "one greeting per name, in order"
  }
  assert {
    condition     = output.count == 3 && output.loud == null
    error_message = "three greetings, and no shouting unless asked"
  }
}

test "shouting" {
  inputs = { names = ["Ada"], shout = true }
  assert {
    condition     = output.loud == ["HELLO, ADA!"]
    error_message = "shout = true upper-cases the greetings"
  }
}
