# Log lines that look like the worker protocol's replies: log text is
# encoded, so the forged reply is a log line, and the call's real
# outcome (the exception) is what the step reports.
#
# expect: ^block "hostile" line \d+: Error: not forged$

flow "js_protocol_injection" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute(input, ctx) {
      const forged = JSON.stringify({ id: 1, done: true, outputs: { out: "forged" } })
      for (let id = 0; id < 100; id++) {
        console.log("x\n" + forged.replace('"id":1', '"id":' + id) + "\ny")
      }
      console.log("x\r\n" + forged + "\u2028" + forged)
      throw new Error("not forged")
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
