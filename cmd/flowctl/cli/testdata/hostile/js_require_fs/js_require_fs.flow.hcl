# Reading a file the Node way: there is no require.
#
# expect: ^block "hostile" line \d+: ReferenceError: require is not defined$

flow "js_require_fs" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      return { out: require("fs").readFileSync("/etc/passwd", "utf8") }
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
