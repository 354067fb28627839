# A network request with fetch.
#
# expect: ^block "hostile" line \d+: ReferenceError: fetch is not defined$

flow "js_fetch" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      return fetch("http://127.0.0.1:1/").then((r) => ({ out: r.status }))
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
