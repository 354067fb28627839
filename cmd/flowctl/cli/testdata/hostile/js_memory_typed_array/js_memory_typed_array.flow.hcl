# A Float64Array of 2^31 elements (16 GiB).
#
# expect: ^block "hostile" exceeded its memory limit$

flow "js_memory_typed_array" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      return { out: new Float64Array(2 ** 31).length }
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
