# flowctl test examples/notes
test "words and keywords are counted" {
  inputs = { files = ["docs/alpha.txt"], min_length = 6 }
  assert {
    condition     = output.report.files == 1 && output.report.words == step.count[0].count
    error_message = "the report counts the one file's words"
  }
  assert {
    condition     = length([for w in output.report.keywords : w if length(w) < 6]) == 0
    error_message = "keywords are at least min_length long"
  }
}

test "the word count block can be replaced" {
  mock "word_count" {
    outputs = { count = 10 }
  }
  assert {
    condition     = output.report.words == 30
    error_message = "three files of ten words"
  }
}
