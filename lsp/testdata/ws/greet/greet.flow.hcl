flow "greet" {
  description = "Greet people, loudly when asked"
}

input "names" {
  type        = list(string)
  description = "Who to greet"
  default     = ["Ada", "Grace"]
}

input "loud" {
  type    = bool
  default = false
}

secret "token" {
  env = "GREET_TOKEN"
}

locals {
  greeting = "Hello"
}

memory "runs" {
  type    = number
  default = 0
  value   = memory.runs + 1
}

step "hello" {
  use      = "value"
  for_each = input.names
  value    = "${local.greeting}, ${each.value}!"
}

step "shout" {
  use  = "shout"
  text = join(" ", step.hello[*].value)
}

step "count" {
  use   = "flow.count_words"
  text  = step.shout.text
  names = input.names
}

step "post" {
  use = "http"
  url = "https://example.com/${input.nmae}"
  headers = {
    Authorization = "Bearer ${secret.token}"
    X-Api         = secret.api_key
  }
  on_error = "continue"
}

step "fetch" {
  use = "http"
}

output "greetings" {
  value = step.hello[*].value
}

output "loud" {
  value = input.loud ? step.shout.text : null
}

output "words" {
  value = step.count.words
}
