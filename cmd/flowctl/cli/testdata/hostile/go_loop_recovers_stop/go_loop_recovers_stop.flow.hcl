# Code that recovers every panic and loops again, in case the stop were
# a panic it could catch.
#
# expect: ^(block "hostile" (line \d+: )?)?exceeded its (2s )?timeout\b

flow "go_loop_recovers_stop" {}

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
      for {
        func() {
          defer func() { recover() }()
          for {
          }
        }()
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
