# Reading a file the Deno way.
#
# expect: ^block "hostile" line \d+: ReferenceError: Deno is not defined$

flow "js_deno" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      return { out: Deno.readTextFileSync("/etc/passwd") }
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
