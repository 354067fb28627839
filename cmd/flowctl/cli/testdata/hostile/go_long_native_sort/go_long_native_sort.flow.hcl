# Standard functions that run long without calling back into the code
# (sort.Float64s over three million numbers, a hundred times) cannot be
# stopped by the interpreter: the worker is abandoned at the deadline.
#
# expect: ^(block "hostile" (line \d+: )?)?exceeded its (2s )?timeout\b

flow "go_long_native_sort" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
      "errors"
      "sort"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      a := make([]float64, 3000000)
      for i := range a {
        a[i] = float64((i * 7919) % 1000003)
      }
      for k := 0; k < 100; k++ {
        sort.Float64s(a)
        a[0], a[len(a)-1] = a[len(a)-1], a[0]
      }
      return nil, errors.New("sorted")
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
