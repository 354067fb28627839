# Loading native code.
#
# Refused by validate and by apply's compilation: no step runs.

flow "compile_go_plugin" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
      "plugin" // want: Forbidden import: Block "hostile": The code imports "plugin"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      _, err := plugin.Open("/tmp/evil.so")
      return nil, err
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
