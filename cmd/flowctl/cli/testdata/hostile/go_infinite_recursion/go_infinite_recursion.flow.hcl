# Endless recursion of a function: go blocks bound the depth of the calls
# that can recurse (unwinding the panic through 5000 interpreted frames
# takes a second or two, hence the longer timeout).
#
# expect: ^block "hostile" panicked at \S+:\d+: recursion deeper than 5000 calls \(the limit of go blocks\)$

flow "go_infinite_recursion" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import "context"

    func down(n int) int {
      return down(n+1) + 1
    }

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      return map[string]any{"out": down(0)}, nil
    }
  GO
}

step "hostile" {
  use     = "hostile"
  timeout = "60s"
}

block "independent" {
  runtime = "go"
  output "n" {
    type = number
  }
  source = <<-GO
    package block

    import "context"

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      return map[string]any{"n": 1}, nil
    }
  GO
}

step "independent" {
  use = "independent"
}
