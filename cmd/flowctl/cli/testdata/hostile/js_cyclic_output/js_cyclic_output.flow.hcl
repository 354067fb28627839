# A result that contains itself.
#
# expect: ^block "hostile": cannot serialise the result of execute: TypeError: Converting circular structure to JSON$

flow "js_cyclic_output" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      const a = {}
      a.self = a
      return { out: a }
    }
  JS
}

step "hostile" {
  use     = "hostile"
  timeout = "60s"
}

block "independent" {
  runtime = "js"
  output "n" {
    type = number
  }
  source = "function execute() { return { n: 1 } }"
}

step "independent" {
  use = "independent"
}
