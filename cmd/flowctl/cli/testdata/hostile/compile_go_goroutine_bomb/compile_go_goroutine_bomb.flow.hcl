# A goroutine bomb: go statements are refused, since a goroutine could
# outlive the call.
#
# Refused by validate and by apply's compilation: no step runs.

flow "compile_go_goroutine_bomb" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import "context"

    func bomb() {
      for {
        go bomb() // want: Go statement in a go block
      }
    }

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      bomb()
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
