# Read local text files, fan out over them, transform each with a sandboxed
# JavaScript block and a Go block from blocks/, and aggregate the results.
# Runs offline: no network, no API key.
flow "notes" {
  description = "Word statistics over the text files in docs/"
}

input "files" {
  type        = list(string)
  description = "Text files to read, relative to this flow"
  default     = ["docs/alpha.txt", "docs/beta.txt", "docs/gamma.txt"]
}

input "min_length" {
  type        = number
  description = "Only words at least this long count as keywords"
  default     = 5
}

block "keywords" {
  description = "The distinct long words of a text, in order of first use"
  runtime     = "js"
  input "text" {
    type = string
  }
  input "min_length" {
    type    = number
    default = 5
  }
  output "words" {
    type = list(string)
  }
  source = <<-JS
    function execute(input, ctx) {
      const seen = new Set()
      const words = []
      for (const w of input.text.toLowerCase().split(/[^a-z]+/)) {
        if (w.length >= input.min_length && !seen.has(w)) {
          seen.add(w)
          words.push(w)
        }
      }
      return { words: words }
    }
  JS
  example {
    input  = { text = "Flows wire typed blocks; blocks are typed.", min_length = 5 }
    output = { words = ["flows", "typed", "blocks"] }
  }
}

step "read" {
  use      = "file"
  for_each = input.files
  path     = each.value
}

step "count" {
  use      = "word_count"
  for_each = step.read
  text     = each.value.text
}

step "keywords" {
  use        = "keywords"
  for_each   = step.read
  text       = each.value.text
  min_length = input.min_length
}

step "report" {
  use = "value"
  value = {
    files    = length(input.files)
    words    = sum(step.count[*].count)
    keywords = distinct(flatten(step.keywords[*].words))
  }
}

output "report" {
  value = step.report.value
}
