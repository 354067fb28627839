# A result that contains itself.
#
# expect: ^block "hostile" returned output "out", which is not JSON-shaped: json: unsupported value: encountered a cycle

flow "go_cyclic_output" {}

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
      m := map[string]any{}
      m["self"] = m
      return map[string]any{"out": m}, nil
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
