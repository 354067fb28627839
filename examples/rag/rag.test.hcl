# flowctl test examples/rag: the model and the collection are mocked; the
# citations are checked by the flow's own JavaScript block.
test "the answer cites a passage found" {
  inputs = { question = "How do I share the state?" }
  mock "embed" {
    outputs = { vectors = [for t in args.texts : [length(t)]], embedded = length(args.texts) }
  }
  mock "vector_upsert" {
    outputs = { count = length(args.items) }
  }
  mock "vector_search" {
    outputs = {
      matches = [
        { id = "docs/state.md#1", score = 0.9, text = "A team shares one state.", metadata = { source = "docs/state.md", start = 174, end = 392 } },
        { id = "docs/install.md#0", score = 0.5, text = "flowctl is a single binary.", metadata = { source = "docs/install.md", start = 0, end = 150 } },
      ]
    }
  }
  mock "llm" {
    outputs = { answer = "Point flowctl at PostgreSQL.", sources = [{ source = "docs/state.md", start = 174, end = 392 }] }
  }
  assert {
    condition     = output.answer == "Point flowctl at PostgreSQL." && output.sources == [{ source = "docs/state.md", start = 174, end = 392 }]
    error_message = "the answer and its source come from the model, checked against the matches"
  }
  assert {
    condition     = length(step.index) == 3
    error_message = "each Markdown file under docs/ is indexed, keyed by its path"
  }
}

test "a citation of no match fails the run" {
  mock "embed" {
    outputs = { vectors = [for t in args.texts : [length(t)]], embedded = length(args.texts) }
  }
  mock "vector_upsert" {
    outputs = { count = length(args.items) }
  }
  mock "vector_search" {
    outputs = {
      matches = [{ id = "docs/state.md#1", score = 0.9, text = "A team shares one state.", metadata = { source = "docs/state.md", start = 174, end = 392 } }]
    }
  }
  mock "llm" {
    outputs = { answer = "Somewhere else.", sources = [{ source = "docs/elsewhere.md", start = 0, end = 10 }] }
  }
  expect_failures = [step.cited]
  assert {
    condition     = run.status == "failed" && run.failed_steps == ["cited"]
    error_message = "an invented source fails the run at the check"
  }
}
