# The classic catastrophic pattern /(a+)+$/ on 'a'*30 + '!': goja runs
# patterns that RE2 accepts on Go's linear-time regexp package, so the
# match completes at once; the code then reports the result by throwing.
#
# expect: ^block "hostile" line \d+: Error: matched=false$

flow "js_regexp_linear" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      const matched = /(a+)+$/.test("a".repeat(30) + "!")
      throw new Error("matched=" + matched)
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
