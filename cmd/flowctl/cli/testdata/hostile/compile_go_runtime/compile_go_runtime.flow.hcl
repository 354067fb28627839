# The runtime package: goroutines, GOMAXPROCS, Goexit.
#
# Refused by validate and by apply's compilation: no step runs.

flow "compile_go_runtime" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
      "runtime" // want: Forbidden import: Block "hostile": The code imports "runtime"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      runtime.GOMAXPROCS(1)
      runtime.Goexit()
      return nil, nil
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
