# Every network object of browsers and servers is missing; the code
# lists those it finds, then tries XMLHttpRequest.
#
# expect: ^block "hostile" line \d+: ReferenceError: XMLHttpRequest is not defined$

flow "js_network_objects" {}

block "hostile" {
  runtime = "js"
  output "out" {
    type = any
  }
  source = <<-JS
    function execute() {
      const names = ["XMLHttpRequest", "WebSocket", "EventSource", "fetch", "Request",
        "Response", "Headers", "navigator", "WebTransport", "RTCPeerConnection"]
      const found = names.filter((n) => typeof globalThis[n] !== "undefined")
      if (found.length > 0) {
        throw new Error("network objects: " + found.join(", "))
      }
      const xhr = new XMLHttpRequest()
      xhr.open("GET", "http://127.0.0.1:1/", false)
      return { out: xhr.responseText }
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
