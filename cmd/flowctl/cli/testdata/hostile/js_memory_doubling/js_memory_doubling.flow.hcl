# A string that doubles until something gives.
#
# expect: ^block "hostile" exceeded its memory limit$

flow "js_memory_doubling" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      let s = "xy"
      for (;;) {
        s = s + s
      }
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
