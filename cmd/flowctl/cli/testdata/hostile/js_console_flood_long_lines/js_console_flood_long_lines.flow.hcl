# A gibibyte of log in lines of a MiB: the log is capped at the first
# line, so the flood costs little; the code then throws to show it ran
# to its end.
#
# expect: ^block "hostile" line \d+: Error: logged 1024 MiB$

flow "js_console_flood_long_lines" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      const line = "x".repeat(1 << 20)
      for (let i = 0; i < 1024; i++) {
        console.log(line)
      }
      throw new Error("logged 1024 MiB")
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
