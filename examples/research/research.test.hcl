# flowctl test examples/research: no network, no model, no token.
test "pages are summarized" {
  secrets = { search_token = "test" }
  override "step.search" {
    outputs = {
      status = 200
      body   = { results = [{ url = "https://a.example/one" }, { url = "https://b.example/two" }] }
    }
  }
  mock "scrape" {
    outputs = { text = "Agents coordinate through ${args.url}" }
  }
  mock "llm" {
    outputs = { text = "", bullets = ["agents", "coordinate", "pages"] }
  }
  assert {
    condition     = length(step.pages) == 2 && contains(step.words.words, "Agents")
    error_message = "every result is scraped and its keywords found"
  }
  assert {
    condition     = output.summary == ["agents", "coordinate", "pages"]
    error_message = "the summary is the model's bullets"
  }
}

test "no results, no summary" {
  secrets = { search_token = "test" }
  override "step.search" {
    outputs = { status = 200, body = { results = [] } }
  }
  mock "scrape" {
    outputs = { text = "" }
  }
  mock "llm" {
    outputs = { text = "", bullets = [] }
  }
  assert {
    condition     = output.summary == null && step.words.words == []
    error_message = "the summary step is skipped without keywords"
  }
}
