# Endless recursion ends at the runtime's call depth limit with a
# RangeError at the line of the recursive call, long before the Go stack
# of the worker is at risk.
#
# expect: ^block "hostile" line \d+: RangeError: Maximum call stack size exceeded

flow "js_infinite_recursion" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      function down(n) {
        return down(n + 1) + 1
      }
      return { out: down(0) }
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
