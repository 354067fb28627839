# Read local notes, fan out over them, measure each, and aggregate a digest.
# Runs offline with built-in blocks only: no network, no API key. Apply it
# twice: the second run reuses every cached step, and memory counts the runs.
flow "digest" {
  description = "A word-count digest of the notes in notes/"
}

input "files" {
  type        = list(string)
  description = "Notes to read, relative to this flow"
  default     = ["notes/planning.md", "notes/review.md", "notes/retro.md"]
}

input "min_word_length" {
  type        = number
  description = "Words shorter than this are not counted as keywords"
  default     = 6
}

memory "runs" {
  type        = number
  default     = 0
  value       = memory.runs + 1
  description = "How many successful digests this namespace has made"
}

step "read" {
  use      = "file"
  for_each = input.files
  path     = each.value
}

step "measure" {
  use      = "value"
  for_each = step.read
  value = {
    file  = input.files[each.key]
    title = trimprefix(trimspace(split("\n", each.value.text)[0]), "# ")
    words = length(regexall("[A-Za-z']+", each.value.text))
    keywords = distinct([
      for w in regexall("[A-Za-z]+", lower(each.value.text)) : w if length(w) >= input.min_word_length
    ])
  }
}

step "digest" {
  use = "value"
  value = {
    notes       = length(step.measure)
    total_words = sum(step.measure[*].value.words)
    longest     = [for m in step.measure[*].value : m.title if m.words == max(step.measure[*].value.words...)][0]
    keywords    = sort(distinct(flatten(step.measure[*].value.keywords)))
  }
}

output "digest" {
  value = step.digest.value
}

output "titles" {
  value = step.measure[*].value.title
}

output "run_number" {
  value = memory.runs + 1
}
