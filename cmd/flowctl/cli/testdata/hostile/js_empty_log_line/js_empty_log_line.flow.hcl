# An empty line in the log (console.log(""), or a blank line inside a
# message) must be logged like any other. The code then throws, so the
# step fails with its exception.
#
# expect: ^block "hostile" line \d+: Error: after empty lines$

flow "js_empty_log_line" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      console.log("")
      console.log("a\n\nb")
      throw new Error("after empty lines")
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
