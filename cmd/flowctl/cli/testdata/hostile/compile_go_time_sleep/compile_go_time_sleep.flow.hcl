# Sleeping past the timeout: time is allowed without the functions that
# sleep or start timers.
#
# Refused by validate and by apply's compilation: no step runs.

flow "compile_go_time_sleep" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
      "time"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      time.Sleep(time.Hour) // want: Go compile error: .*has no symbol Sleep
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
