# A long call of a built-in function: sorting a million numbers as
# strings takes longer than the timeout, and goja cannot interrupt a
# built-in. The worker is killed shortly after the deadline.
#
# expect: ^(block "hostile" (line \d+: )?)?exceeded its (2s )?timeout\b

flow "js_long_native_sort" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      const a = []
      for (let i = 0; i < 1e6; i++) {
        a.push((i * 7919) % 1000003)
      }
      a.sort()
      return { out: a.length }
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
