# A 24 MB result, over the 16 MiB cap on a call's outputs, fails with a
# clear size error, and flowctl's own memory stays bounded (the test
# checks it for every case). Far larger results exhaust the worker's
# memory while they are made, and fail with "exceeded its memory limit".
#
# expect: (?i)more than \d+ (bytes|MiB|MB)|too (large|big)|output.*size|size.*limit

flow "js_huge_output" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      return { out: "x".repeat(24 << 20) }
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
