# The flow has a secret from the environment (HOSTILE_SECRET, which the
# test sets), and the independent step passes it into a worker before
# the hostile step runs, likely in the same worker. The hostile code
# tries every way there is to the environment and to earlier calls; it
# finds nothing, and the test checks that the secret appears in no
# output.
#
# expect: ^block "hostile" line \d+: Error: found: nothing$

flow "js_env_exfiltration" {}

block "hostile" {
  runtime = "js"
  input "after" {
    type = number
  }
  output "out" {
    type = any
  }
  source = <<-JS
    function execute(input, ctx) {
      const found = []
      const attempt = (what, get) => {
        try {
          const v = get()
          if (v !== undefined && v !== null && JSON.stringify(v) !== "[]" && JSON.stringify(v) !== "{}") {
            found.push(what + "=" + JSON.stringify(v))
          }
        } catch (e) {}
      }
      attempt("process.env", () => process.env)
      attempt("Deno.env", () => Deno.env.toObject())
      attempt("std.getenviron", () => std.getenviron())
      attempt("os.getenv", () => os.getenv("HOSTILE_SECRET"))
      attempt("globalThis.env", () => globalThis.env)
      attempt("globalThis.HOSTILE_SECRET", () => globalThis.HOSTILE_SECRET)
      attempt("ctx", () => Object.keys(ctx).filter((k) => k !== "step"))
      attempt("input", () => Object.keys(input).filter((k) => k !== "after"))
      attempt("globals", () => Object.getOwnPropertyNames(globalThis).filter((k) => /secret|token|env/i.test(k)))
      throw new Error("found: " + (found.length > 0 ? found.join(", ") : "nothing"))
    }
  JS
}

step "hostile" {
  use     = "hostile"
  timeout = "60s"
  after   = step.independent.n
}

secret "token" {
  env = "HOSTILE_SECRET"
}

block "independent" {
  runtime = "js"
  input "text" {
    type = string
  }
  output "n" {
    type = number
  }
  source = "function execute(input) { return { n: input.text.length } }"
}

step "independent" {
  use  = "independent"
  text = secret.token
}
