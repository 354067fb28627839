# A panic fails the step with its value, at its line in the flow file.
#
# expect: ^block "hostile" panicked at \S+\.flow\.hcl:\d+: hostile 42$

flow "go_panic" {}

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
      panic(fmt.Sprint("hostile ", 42))
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
