# flowctl test examples/summarize: the model is mocked.
test "each note is summarized" {
  mock "summarize_note" {
    outputs = { summary = "A note of ${length(args.text)} bytes.", topics = ["ops", "launch"] }
  }
  mock "llm" {
    outputs = { text = "Overview: ${args.prompt}" }
  }
  assert {
    condition     = length(output.summaries) == 2 && output.topics == ["launch", "ops"]
    error_message = "one summary per note; topics sorted and distinct"
  }
  assert {
    condition     = startswith(output.overview, "Overview: Write a two-sentence overview")
    error_message = "the overview is asked of the model with the summaries"
  }
}
