# A Promise that never settles: there are no timers or I/O that could
# settle it, so the step fails at once instead of waiting for its
# timeout.
#
# expect: ^block "hostile": execute returned a Promise that never settled

flow "js_promise_never_settles" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      return new Promise(() => {})
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
