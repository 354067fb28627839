# A panic inside a function that a standard function (sort.Slice) calls
# back: it unwinds through sort and fails the step at its line.
#
# expect: ^block "hostile" panicked at \S+\.flow\.hcl:\d+: in less$

flow "go_panic_in_callback" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
      "sort"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      a := []int{3, 2, 1}
      sort.Slice(a, func(i, j int) bool { panic("in less") })
      return map[string]any{"out": a}, nil
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
