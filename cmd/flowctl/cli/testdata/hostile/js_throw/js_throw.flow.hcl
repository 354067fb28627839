# A plain exception: the step fails with the error's name, message and
# line.
#
# expect: ^block "hostile" line \d+: TypeError: hostile 42$

flow "js_throw" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      throw new TypeError("hostile " + 42)
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
