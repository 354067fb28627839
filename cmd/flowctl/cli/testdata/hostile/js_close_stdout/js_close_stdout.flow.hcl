# Closing flowctl's standard output, or writing to it around the
# protocol: no stream is reachable, and the attempt fails with a
# ReferenceError while flowctl's own output stays intact.
#
# expect: ^block "hostile" line \d+: ReferenceError: process is not defined$

flow "js_close_stdout" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      const found = []
      const streams = {
        "process.stdout": () => process.stdout,
        "Deno.stdout": () => Deno.stdout,
        "console._stdout": () => console._stdout,
        "console.stream": () => console.stream,
      }
      for (const [what, get] of Object.entries(streams)) {
        try {
          if (get() !== undefined) {
            found.push(what)
          }
        } catch (e) {}
      }
      if (found.length > 0) {
        throw new Error("reachable streams: " + found.join(", "))
      }
      process.stdout.end()
      return { out: "closed" }
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
