# An ArrayBuffer of a tebibyte.
#
# expect: ^block "hostile" exceeded its memory limit$

flow "js_memory_arraybuffer" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      return { out: new ArrayBuffer(2 ** 40).byteLength }
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
