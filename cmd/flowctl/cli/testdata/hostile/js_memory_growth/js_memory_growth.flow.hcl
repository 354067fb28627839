# Gradual growth: arrays pushed onto an array that is never released.
#
# expect: ^block "hostile" exceeded its memory limit$

flow "js_memory_growth" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      const keep = []
      for (;;) {
        keep.push(new Array(100000).fill(1))
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
