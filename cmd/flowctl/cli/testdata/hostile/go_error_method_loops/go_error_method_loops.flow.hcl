# The returned error's Error method never returns: the worker calls it
# to report the error, under the step's timeout.
#
# expect: ^(block "hostile" (line \d+: )?)?exceeded its (2s )?timeout\b

flow "go_error_method_loops" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import "context"

    type loop struct{}

    func (loop) Error() string {
      for {
      }
    }

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      return nil, loop{}
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
