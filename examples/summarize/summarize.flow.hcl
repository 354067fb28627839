# Summarize local notes with a language model: an llm block with structured
# output (typed fields, checked), fanned out over the notes, and the llm
# built-in for a free-text overview. Needs OPENAI_API_KEY, or OPENAI_BASE_URL
# pointing at a local OpenAI-compatible server such as Ollama
# (OPENAI_BASE_URL=http://localhost:11434/v1 FLOWCTL_MODEL=llama3.2).
flow "summarize" {
  description = "One-sentence summaries, topics and an overview of the notes in notes/"
}

input "files" {
  type    = list(string)
  default = ["notes/launch.md", "notes/incident.md"]
}

block "summarize_note" {
  description = "Summarize a note in one sentence and list its topics"
  use_when    = "You need a short summary and the topics of a text"
  tags        = ["text", "llm"]
  runtime     = "llm"
  system      = "You summarize engineering notes precisely and briefly."
  prompt      = "Summarize this note in one sentence and list its main topics as lower-case words.\n\n${input.text}"
  temperature = 0.2

  input "text" {
    type = string
  }
  output "summary" {
    type        = string
    description = "one sentence"
  }
  output "topics" {
    type        = list(string)
    description = "lower-case topic words"
  }
}

step "read" {
  use      = "file"
  for_each = input.files
  path     = each.value
}

step "summaries" {
  use      = "summarize_note"
  for_each = step.read
  text     = each.value.text
}

step "overview" {
  use        = "llm"
  system     = "You write terse overviews for a weekly report."
  prompt     = "Write a two-sentence overview of these summaries:\n${join("\n", step.summaries[*].summary)}"
  max_tokens = 200
}

output "summaries" {
  value = step.summaries[*].summary
}

output "topics" {
  value = sort(distinct(flatten(step.summaries[*].topics)))
}

output "overview" {
  value = step.overview.text
}
