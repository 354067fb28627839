# The research flow: search the web, scrape the pages found, extract keywords
# with an inline JavaScript block and summarize with a model. Needs network
# access, SEARCH_API_TOKEN and an OpenAI-compatible model to apply; it
# validates offline, and plans offline with any token:
# flowctl plan examples/research --secret search_token=any
flow "research" {
  description = "Search for a topic and summarize what was found"
}

input "topic" {
  type        = string
  description = "What to research"
  default     = "AI agents"
}

secret "search_token" {
  env         = "SEARCH_API_TOKEN"
  description = "Token for the search API"
}

locals {
  query = "${input.topic} news"
}

memory "last_topic" {
  type    = string
  default = ""
  value   = input.topic
}

block "keywords" {
  runtime = "js"
  input "text" {
    type = string
  }
  output "words" {
    type = list(string)
  }
  source = <<-JS
    function execute(input, ctx) {
      return { words: input.text.split(/\W+/).filter(w => w.length > 4) }
    }
  JS
  example {
    input  = { text = "Agents search the pages, then summarize them." }
    output = { words = ["Agents", "search", "pages", "summarize"] }
  }
}

step "search" {
  use     = "http"
  url     = "https://search.example.com/api?q=${urlencode(local.query)}"
  headers = { Authorization = "Bearer ${secret.search_token}" }
  timeout = "10s"
  retry {
    attempts = 3
    backoff  = "1s"
  }
}

step "pages" {
  use      = "scrape"
  for_each = step.search.body.results
  url      = each.value.url
}

step "words" {
  use  = "keywords"
  text = join("\n", step.pages[*].text)
}

step "summary" {
  use    = "llm"
  when   = length(step.words.words) > 0
  prompt = "Summarize in 3 bullets: ${join("\n", step.pages[*].text)}"
  output "bullets" {
    type        = list(string)
    description = "three short bullets"
  }
}

output "summary" {
  value = step.summary.bullets
}
