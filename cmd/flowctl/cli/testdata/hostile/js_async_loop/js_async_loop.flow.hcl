# An async execute that loops after its first await.
#
# expect: ^(block "hostile" (line \d+: )?)?exceeded its (2s )?timeout\b

flow "js_async_loop" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    async function execute() {
      await null
      for (;;) {}
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
