# Reading the environment.
#
# Refused by validate and by apply's compilation: no step runs.

flow "compile_go_os_getenv" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
      "os" // want: Forbidden import: Block "hostile": The code imports "os"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      return map[string]any{"out": os.Environ()}, nil
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
