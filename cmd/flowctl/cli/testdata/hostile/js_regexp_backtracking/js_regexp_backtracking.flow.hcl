# A lookahead makes goja use its backtracking engine (regexp2), where
# (a+)+ on 'a'*40 + '!' takes exponential time inside a built-in that
# cannot be interrupted: the worker is killed after the deadline.
#
# expect: ^(block "hostile" (line \d+: )?)?exceeded its (2s )?timeout\b

flow "js_regexp_backtracking" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      const matched = /^(a+)+(?=b)/.test("a".repeat(40) + "!")
      throw new Error("matched=" + matched)
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
