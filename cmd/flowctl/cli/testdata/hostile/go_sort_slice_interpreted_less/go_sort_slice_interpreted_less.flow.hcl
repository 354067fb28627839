# sort.Slice over three million elements with an interpreted less
# function: the standard function calls back into the code millions of
# times.
#
# expect: ^(block "hostile" (line \d+: )?)?exceeded its (2s )?timeout\b

flow "go_sort_slice_interpreted_less" {}

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
      sort.Slice(a, func(i, j int) bool { return a[i] < a[j] })
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
