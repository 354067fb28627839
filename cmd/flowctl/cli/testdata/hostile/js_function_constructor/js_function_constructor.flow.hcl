# Every way ordinary code has to a global object (the Function and
# GeneratorFunction constructors, indirect eval, a sloppy function's
# this) reaches the sandbox's own global object, which has nothing of
# the host.
#
# expect: ^block "hostile" line \d+: Error: 5 ways, all to the sandbox's own global object$

flow "js_function_constructor" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      const GeneratorFunction = Object.getPrototypeOf(function* () {}).constructor
      const ways = {
        Function: (function () {}).constructor("return this")(),
        GeneratorFunction: new GeneratorFunction("yield this")().next().value,
        indirectEval: (0, eval)("this"),
        sloppyThis: (function () { return this })(),
        prototypeChain: Object.getPrototypeOf(() => 0).constructor("return globalThis")(),
      }
      const problems = []
      for (const [way, g] of Object.entries(ways)) {
        if (g !== globalThis) {
          problems.push(way + " reached another object")
        }
        for (const name of ["require", "process", "Deno", "Bun", "fetch", "setTimeout", "Java"]) {
          if (g != null && name in g) {
            problems.push(way + " has " + name)
          }
        }
      }
      if (problems.length > 0) {
        throw new Error(problems.join("; "))
      }
      throw new Error(Object.keys(ways).length + " ways, all to the sandbox's own global object")
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
