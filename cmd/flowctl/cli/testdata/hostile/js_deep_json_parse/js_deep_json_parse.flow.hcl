# JSON.parse of ten million nested arrays recurses in Go, inside a
# built-in: the worker's stack limit (or its memory limit, which the
# growing stack's copies can reach first) ends it, and only the worker.
#
# expect: ^block "hostile" exceeded its (stack limit \(the recursion is too deep\)|memory limit)$

flow "js_deep_json_parse" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      return { out: JSON.parse("[".repeat(1e7)) }
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
