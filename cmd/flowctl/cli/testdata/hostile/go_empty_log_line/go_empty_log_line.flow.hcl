# An empty line in the log (println()) must be logged like any other.
# The code then returns an error, which the step reports.
#
# expect: ^block "hostile" returned an error: after an empty line

flow "go_empty_log_line" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
      "errors"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      println()
      return nil, errors.New("after an empty line")
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
