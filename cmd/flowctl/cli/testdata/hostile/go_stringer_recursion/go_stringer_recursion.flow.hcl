# A String method that formats its own value: the recursion goes through
# fmt, so the depth guard (which follows calls by name) does not see it,
# and the worker's Go stack overflows (or its memory limit is reached
# while the stack is copied).
#
# expect: ^block "hostile" exceeded its (stack limit \(the recursion is too deep\)|memory limit)$

flow "go_stringer_recursion" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
      "fmt"
    )

    type T struct{ n int }

    func (t T) String() string { return fmt.Sprint(t.n, t) }

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      return map[string]any{"out": fmt.Sprint(T{1})}, nil
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
