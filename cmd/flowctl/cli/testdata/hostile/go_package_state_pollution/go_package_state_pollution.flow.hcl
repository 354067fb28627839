# The exported variables of allowed packages (base64.StdEncoding): an
# assignment to one is refused by validate (compile_go_package_variable),
# so the hostile step changes one through an alias, which no check sees,
# and succeeds. Every interpreter has its own copies of the variables:
# calls of another block, which depend on it and so run after it (some in
# the same worker), must still see the standard encoding.
#
# expect: ok
# expect check: ok

flow "go_package_state_pollution" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
      "encoding/base64"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      enc := base64.StdEncoding
      *enc = *base64.URLEncoding
      return map[string]any{"out": enc.EncodeToString([]byte{0xfb, 0xff})}, nil
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

block "checker" {
  runtime = "go"
  input "after" {
    type = any
  }
  output "clean" {
    type = bool
  }
  source = <<-GO
    package block

    import (
      "context"
      "encoding/base64"
      "fmt"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      if got := base64.StdEncoding.EncodeToString([]byte{0xfb, 0xff}); got != "+/8=" {
        return nil, fmt.Errorf("polluted: base64.StdEncoding encodes 0xfbff as %q", got)
      }
      return map[string]any{"clean": true}, nil
    }
  GO
}

step "check" {
  for_each = range(4)
  cache    = false
  use      = "checker"
  after    = step.hostile.out
}
