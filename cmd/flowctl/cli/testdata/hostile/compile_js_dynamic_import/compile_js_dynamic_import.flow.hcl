# import() of a module: a syntax error for a block's script, found by
# validate.
#
# Refused by validate and by apply's compilation: no step runs.

flow "compile_js_dynamic_import" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      return import("fs").then((fs) => ({ out: fs.readFileSync("/etc/passwd", "utf8") })) // want: Invalid JavaScript: .*SyntaxError: Unexpected reserved word
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
