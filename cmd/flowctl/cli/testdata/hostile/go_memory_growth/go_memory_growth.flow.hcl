# Gradual growth: a MiB at a time, all kept.
#
# expect: ^block "hostile" exceeded its memory limit$

flow "go_memory_growth" {}

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
      var keep [][]byte
      for {
        keep = append(keep, make([]byte, 1<<20))
      }
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
