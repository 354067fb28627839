# A result nested ten thousand slices deep: refused, not recursed into by
# flowctl.
#
# expect: ^block "hostile" returned output "out" that cannot be read back: .*exceeded max depth

flow "go_deep_nested_output" {}

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
      var v any = []any{}
      for i := 0; i < 10000; i++ {
        v = []any{v}
      }
      return map[string]any{"out": v}, nil
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
