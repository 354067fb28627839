# A runtime error of the code: assignment to a nil map.
#
# expect: ^block "hostile" panicked at \S+\.flow\.hcl:\d+: assignment to entry in nil map$

flow "go_nil_map" {}

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
      var m map[string]any
      m["out"] = 1
      return m, nil
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
