# flowctl test examples/digest
test "the notes are digested" {
  assert {
    condition     = output.digest.notes == 3 && length(output.titles) == 3
    error_message = "one entry per note"
  }
  assert {
    condition     = output.digest.total_words > 0 && contains(output.titles, output.digest.longest)
    error_message = "the longest note is one of them"
  }
}

test "one note" {
  inputs = { files = ["notes/retro.md"] }
  assert {
    condition     = output.digest.notes == 1 && output.titles == [output.digest.longest]
    error_message = "a digest of one note"
  }
}

test "a missing note fails the read" {
  inputs          = { files = ["notes/missing.md"] }
  expect_failures = [step.read]
  assert {
    condition     = run.status == "failed"
    error_message = "a note that is not there fails the run"
  }
}
