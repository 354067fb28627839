# Answer a question from the Markdown files under docs/, citing them.
# Each run syncs the collection with the files (a changed file's chunks
# are replaced as a unit, a deleted file's are removed; only changed
# chunks are embedded again), then searches it and asks a model, whose
# citations are checked against what the search found. See README.md.
#
#   flowctl apply --auto-approve examples/rag --input question="How do I share the state?"
#
# Needs an OpenAI-compatible server with an embeddings model of 768
# dimensions and a chat model: OPENAI_BASE_URL=http://localhost:11434/v1
# FLOWCTL_MODEL=llama3.2 with Ollama's nomic-embed-text, for instance.
flow "rag" {
  description = "Answer a question from the Markdown files under docs/, with the sources it used"
}

input "question" {
  type        = string
  default     = "How do I install flowctl?"
  description = "The question to answer from the documents"
}

locals {
  # The embeddings model fills the collection and embeds the question:
  # change both it and the collection's dimensions together.
  embeddings_model = "nomic-embed-text"
  files            = fileset(".", "docs/**/*.md")
  # Keyed by path, not by position: a document's instances, chunks and
  # source stay its own when files are added or removed.
  by_path = { for f in local.files : f => f }
}

collection "docs" {
  dimensions  = 768
  distance    = "cosine"
  description = "The chunks of the Markdown files under docs/, with their source and offsets"
}

# The files the collection held after the last run, so that the chunks of
# those deleted since are removed.
memory "sources" {
  type        = list(string)
  default     = []
  description = "The files indexed by the last run"
  value       = sort(local.files)
}

step "doc" {
  for_each = local.by_path
  use      = "document"
  path     = each.value
}

step "chunks" {
  for_each   = step.doc
  use        = "chunk"
  text       = each.value.text
  max_tokens = 200
  overlap    = 20
}

# Per document: an unchanged document's step is cached, and an edited
# one sends only its chunks that have no vector yet.
step "embed" {
  for_each = step.chunks
  use      = "embed"
  model    = local.embeddings_model
  texts    = [for c in each.value.chunks : c.text]
}

# A document's chunks replace its previous ones as a unit.
step "index" {
  for_each   = step.embed
  use        = "vector_upsert"
  collection = collection.docs
  items = [for i, v in each.value.vectors : {
    id       = "${each.key}#${i}"
    vector   = v
    text     = step.chunks[each.key].chunks[i].text
    metadata = { source = each.key, start = step.chunks[each.key].chunks[i].start, end = step.chunks[each.key].chunks[i].end }
  }]
  replace = { source = each.key }
}

step "forget" {
  for_each   = setsubtract(memory.sources, local.files)
  use        = "vector_delete"
  collection = collection.docs
  where      = { source = each.value }
}

step "search" {
  use        = "vector_search"
  collection = collection.docs
  model      = local.embeddings_model
  query      = input.question
  top_k      = 4
  depends_on = [step.index, step.forget]
}

step "answer" {
  use         = "llm"
  temperature = 0
  system      = "Answer the question from the passages alone, briefly. Cite each passage you used by its source, start and end exactly as given. If the passages do not answer it, say so and cite nothing."
  prompt = join("\n\n", concat(
    [for m in step.search.matches : "[source ${m.metadata.source}, start ${m.metadata.start}, end ${m.metadata.end}]\n${m.text}"],
    ["Question: ${input.question}"],
  ))
  output "answer" {
    type        = string
    description = "The answer"
  }
  output "sources" {
    type        = list(object({ source = string, start = number, end = number }))
    description = "The passages the answer uses, as given"
  }
}

block "check_citations" {
  description = "Fail unless each citation lies within one of the passages the search found"
  runtime     = "js"
  input "sources" {
    type = list(object({ source = string, start = number, end = number }))
  }
  input "matches" {
    type = list(object({ source = string, start = number, end = number }))
  }
  output "sources" {
    type = list(object({ source = string, start = number, end = number }))
  }
  source = <<-JS
    function execute(input, ctx) {
      for (const s of input.sources) {
        const ok = input.matches.some(m => m.source === s.source && m.start <= s.start && s.end <= m.end && s.start < s.end)
        if (!ok) {
          throw new Error("the answer cites " + s.source + " [" + s.start + ", " + s.end + "), which is not among the passages found")
        }
      }
      return { sources: input.sources }
    }
  JS
  example {
    input = {
      sources = [{ source = "docs/a.md", start = 0, end = 10 }]
      matches = [{ source = "docs/a.md", start = 0, end = 10 }, { source = "docs/b.md", start = 5, end = 90 }]
    }
    output = { sources = [{ source = "docs/a.md", start = 0, end = 10 }] }
  }
}

step "cited" {
  use     = "check_citations"
  sources = step.answer.sources
  matches = [for m in step.search.matches : { source = m.metadata.source, start = m.metadata.start, end = m.metadata.end }]
}

output "answer" {
  value = step.answer.answer
}

output "sources" {
  value = step.cited.sources
}
