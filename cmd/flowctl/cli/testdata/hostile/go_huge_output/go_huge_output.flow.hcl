# A 24 MB result, over the 16 MiB cap on a call's outputs, fails with a
# clear size error (far larger ones exhaust the worker's memory while they
# are made: "exceeded its memory limit"), and flowctl's own
# memory stays bounded.
#
# expect: (?i)more than \d+ (bytes|MiB|MB)|too (large|big)|output.*size|size.*limit

flow "go_huge_output" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
      "strings"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      return map[string]any{"out": strings.Repeat("x", 24<<20)}, nil
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
