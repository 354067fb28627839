# A result nested ten thousand arrays deep: refused when it is read, not
# recursed into by flowctl.
#
# expect: ^block "hostile": cannot read the result of execute: .*exceeded max depth$

flow "js_deep_nested_output" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      let a = []
      for (let i = 0; i < 1e4; i++) {
        a = [a]
      }
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
