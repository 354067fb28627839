# A loop that never ends is stopped at the step's timeout.
#
# expect: ^(block "hostile" (line \d+: )?)?exceeded its (2s )?timeout\b

flow "go_infinite_loop" {}

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
      n := 0
      for {
        n++
      }
    }
  GO
}

step "hostile" {
  use     = "hostile"
  timeout = "2s"
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
