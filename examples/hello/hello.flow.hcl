# The smallest useful flow: inputs, locals, a fan-out and a condition, with
# no network and no model.
flow "hello" {
  description = "Greet a list of people and count the greetings"
}

input "names" {
  type        = list(string)
  description = "Who to greet"
  default     = ["Ada", "Grace", "Linus"]
}

input "shout" {
  type    = bool
  default = false
}

locals {
  greeting = "Hello"
}

step "greet" {
  use      = "value"
  for_each = input.names
  value    = "${local.greeting}, ${each.value}!"
}

step "loud" {
  use   = "value"
  when  = input.shout
  value = [for g in step.greet[*].value : upper(g)]
}

step "count" {
  use   = "value"
  value = length(step.greet)
}

output "greetings" {
  value = step.greet[*].value
}

output "count" {
  value = step.count.value
}

output "loud" {
  value = step.loud.value # null unless shout = true
}
