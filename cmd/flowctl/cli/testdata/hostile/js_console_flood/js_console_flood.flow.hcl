# Ten million console.log lines: the log is capped in the worker, so
# flowctl's memory stays bounded (the test checks it). The loop takes
# about as long as the timeout: it is stopped, or it ends and the code
# throws to say so.
#
# expect: ^(block "hostile" line \d+: Error: logged 1e7 lines$|(block "hostile" (line \d+: )?)?exceeded its (2s )?timeout\b)

flow "js_console_flood" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      for (let i = 0; i < 1e7; i++) {
        console.log("line", i)
      }
      throw new Error("logged 1e7 lines")
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
