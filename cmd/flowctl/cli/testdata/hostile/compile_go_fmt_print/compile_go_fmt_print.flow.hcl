# Writing to flowctl's standard output with fmt.Println: fmt is allowed
# without the functions that print or scan.
#
# Refused by validate and by apply's compilation: no step runs.

flow "compile_go_fmt_print" {}

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

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      fmt.Println("{\"type\":\"run_finished\",\"status\":\"ok\"}") // want: Go compile error: .*has no symbol Println
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
