# Lifting the worker's limits with runtime/debug.
#
# Refused by validate and by apply's compilation: no step runs.

flow "compile_go_runtime_debug" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
      "runtime/debug" // want: Forbidden import: Block "hostile": The code imports "runtime/debug"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      debug.SetMaxStack(1 << 40)
      debug.SetMemoryLimit(1 << 62)
      return map[string]any{"out": debug.SetGCPercent(-1)}, nil
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
