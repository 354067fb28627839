# Array(1e8).fill().sort(): a hundred million elements, filled and sorted
# by built-in functions that cannot be interrupted; the memory limit
# stops it before the sort could run long.
#
# expect: ^block "hostile" exceeded its memory limit$

flow "js_memory_array_fill_sort" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      return { out: Array(1e8).fill().sort().length }
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
