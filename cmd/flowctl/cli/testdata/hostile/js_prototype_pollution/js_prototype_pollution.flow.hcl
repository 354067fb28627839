# Prototype pollution does not leak into other steps: the hostile step
# rewrites built-in prototypes, JSON, console and the global object and
# succeeds; later calls of the same block and of another block, which
# depend on it and so run after it (likely in the same worker), find
# every built-in clean. Nothing here fails, so flowctl exits 0.
#
# expect: ok
# expect check_same: ok
# expect check_other: ok

flow "js_prototype_pollution" {}

block "hostile" {
  runtime = "js"
  input "mode" {
    type = string
  }
  input "after" {
    type    = any
    default = null
  }
  output "out" {
    type = any
  }
  source = <<-JS
    const checks = () => {
      const dirty = []
      if ({}.polluted !== undefined) {
        dirty.push("Object.prototype")
      }
      if ([1].map((x) => x + 1)[0] !== 2) {
        dirty.push("Array.prototype.map")
      }
      if ("a".toUpperCase() !== "A") {
        dirty.push("String.prototype.toUpperCase")
      }
      if (JSON.stringify({ a: 1 }) !== '{"a":1}') {
        dirty.push("JSON.stringify")
      }
      if (typeof leak !== "undefined") {
        dirty.push("globalThis.leak")
      }
      console.log("console still works")
      return dirty
    }

    function execute(input) {
      if (input.mode === "check") {
        const dirty = checks()
        if (dirty.length > 0) {
          throw new Error("polluted: " + dirty.join(", "))
        }
        return { out: "clean" }
      }
      Object.prototype.polluted = 1
      Array.prototype.map = function () { return ["polluted"] }
      String.prototype.toUpperCase = function () { return "polluted" }
      JSON.stringify = function () { return '{"out":"polluted"}' }
      globalThis.leak = "polluted"
      console.log = function () { throw new Error("polluted console") }
      return { out: "polluted" }
    }
  JS
}

step "hostile" {
  use     = "hostile"
  timeout = "60s"
  mode    = "pollute"
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

step "check_same" {
  for_each = range(3)
  cache    = false
  use      = "hostile"
  mode     = "check"
  after    = step.hostile.out
}

block "checker" {
  runtime = "js"
  input "after" {
    type = any
  }
  output "clean" {
    type = bool
  }
  source = <<-JS
    function execute() {
      const dirty = []
      if ({}.polluted !== undefined) {
        dirty.push("Object.prototype")
      }
      if ([1].map((x) => x + 1)[0] !== 2) {
        dirty.push("Array.prototype.map")
      }
      if (typeof leak !== "undefined") {
        dirty.push("globalThis.leak")
      }
      if (dirty.length > 0) {
        throw new Error("polluted: " + dirty.join(", "))
      }
      return { clean: true }
    }
  JS
}

step "check_other" {
  for_each = range(3)
  cache    = false
  use      = "checker"
  after    = step.hostile.out
}
