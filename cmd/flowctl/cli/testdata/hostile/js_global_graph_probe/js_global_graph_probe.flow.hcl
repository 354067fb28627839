# A walk of everything reachable from the global object (own properties,
# getters and prototypes) finds no name of a host capability. GoError is
# goja's one non-standard global, an ordinary Error constructor.
#
# expect: ^block "hostile" line \d+: Error: reached \d+ objects; host names: none$

flow "js_global_graph_probe" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      const host = /^(require|module|exports|process|Deno|Bun|std|os|fs|net|http|child_process|fetch|XMLHttpRequest|WebSocket|setTimeout|setInterval|setImmediate|queueMicrotask|importScripts|load|read|readline|print|quit|exit|Java|Packages|java|environment|env|spawn|system|open|Go[a-z].*|go[A-Z].*)$/
      const seen = new Set()
      const queue = [[globalThis, "globalThis"]]
      const found = []
      while (queue.length > 0) {
        const [obj, path] = queue.shift()
        if (seen.has(obj)) {
          continue
        }
        seen.add(obj)
        const proto = Object.getPrototypeOf(obj)
        if (proto !== null) {
          queue.push([proto, path + ".__proto__"])
        }
        for (const key of Reflect.ownKeys(obj)) {
          const name = String(key)
          if (host.test(name)) {
            found.push(path + "." + name)
          }
          let value
          try {
            value = obj[key]
          } catch (e) {
            continue
          }
          if (value !== null && (typeof value === "object" || typeof value === "function")) {
            queue.push([value, path + "." + name])
          }
        }
      }
      throw new Error("reached " + seen.size + " objects; host names: " + (found.length > 0 ? found.join(" ") : "none"))
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
