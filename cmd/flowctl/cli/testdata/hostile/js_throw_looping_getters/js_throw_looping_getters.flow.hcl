# The thrown value's name, message and toJSON loop forever when flowctl
# reads them to describe the error; describing it happens under the
# step's timeout too, and the step must say it timed out.
#
# expect: ^(block "hostile" (line \d+: )?)?exceeded its (2s )?timeout\b

flow "js_throw_looping_getters" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      throw {
        get name() { for (;;) {} },
        get message() { for (;;) {} },
        toJSON() { for (;;) {} },
      }
    }
  JS
}

step "hostile" {
  use     = "hostile"
  timeout = "2s"
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
