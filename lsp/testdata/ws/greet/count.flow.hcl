flow "count_words" {
  description = "Count the words of a text"
}

input "text" {
  type        = string
  description = "The text"
}

input "names" {
  type    = list(string)
  default = []
}

step "split" {
  use   = "value"
  value = split(" ", input.text)
}

output "words" {
  value = length(step.split.value)
}
