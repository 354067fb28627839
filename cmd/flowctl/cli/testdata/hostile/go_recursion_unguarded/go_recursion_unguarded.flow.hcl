# Recursion through a function value kept in a slice, which the depth
# guard cannot see: the Go stack of the worker overflows, a fatal error
# that no recover can catch. It kills the worker, and only the worker.
# Copying a stack that has grown to tens of MiB can reach the memory
# limit first.
#
# expect: ^block "hostile" exceeded its (stack limit \(the recursion is too deep\)|memory limit)$

flow "go_recursion_unguarded" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      fs := []func(int) int{nil}
      fs[0] = func(n int) int { return fs[0](n+1) + 1 }
      return map[string]any{"out": fs[0](0)}, nil
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
