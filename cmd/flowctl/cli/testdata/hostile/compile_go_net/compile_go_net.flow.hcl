# A network connection.
#
# Refused by validate and by apply's compilation: no step runs.

flow "compile_go_net" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
      "net" // want: Forbidden import: Block "hostile": The code imports "net"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      c, err := net.Dial("tcp", "127.0.0.1:22")
      if err != nil {
        return nil, err
      }
      return nil, c.Close()
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
