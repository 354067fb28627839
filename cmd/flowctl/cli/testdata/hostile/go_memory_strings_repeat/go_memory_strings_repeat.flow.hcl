# strings.Repeat of a tebibyte: one call of a standard function.
#
# expect: ^block "hostile" exceeded its memory limit$

flow "go_memory_strings_repeat" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
      "strings"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      return map[string]any{"out": len(strings.Repeat("x", 1<<40))}, nil
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
