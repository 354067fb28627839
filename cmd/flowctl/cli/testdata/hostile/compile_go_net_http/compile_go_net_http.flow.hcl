# An HTTP request.
#
# Refused by validate and by apply's compilation: no step runs.

flow "compile_go_net_http" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
      "io" // want: Forbidden import: Block "hostile": The code imports "io"
      "net/http" // want: Forbidden import: Block "hostile": The code imports "net/http"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      resp, err := http.Get("http://169.254.169.254/latest/meta-data/")
      if err != nil {
        return nil, err
      }
      b, err := io.ReadAll(resp.Body)
      return map[string]any{"out": string(b)}, err
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
