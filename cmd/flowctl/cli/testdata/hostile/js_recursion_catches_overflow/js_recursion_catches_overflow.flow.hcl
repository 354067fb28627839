# Recursion that catches the stack overflow and recurses again from every
# frame (2^1000 calls if the RangeError could be caught): the overflow
# cannot be caught, so the call fails at once.
#
# expect: ^block "hostile" line \d+: RangeError: Maximum call stack size exceeded

flow "js_recursion_catches_overflow" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      function down(n) {
        try {
          down(n + 1)
        } catch (e) {
          down(n + 1)
        }
      }
      down(0)
      return { out: 0 }
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
