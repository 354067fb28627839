# Linear is not fast: a pattern of counted repetitions over 16 MiB runs
# for about a minute inside regexp (linear time, with a large constant),
# which cannot be interrupted: the worker is abandoned at the deadline.
#
# expect: ^(block "hostile" (line \d+: )?)?exceeded its (2s )?timeout\b

flow "go_regexp_huge_input" {}

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
      "regexp"
      "strings"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      re := regexp.MustCompile(`(x{1,100}x{1,100})+y`)
      matched := re.MatchString(strings.Repeat("x", 16<<20))
      return nil, fmt.Errorf("matched=%v", matched)
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
