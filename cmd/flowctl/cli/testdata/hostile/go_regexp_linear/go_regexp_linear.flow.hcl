# Go's regexp is linear: the catastrophic pattern of backtracking engines,
# (a+)+$ on 'a'*30 + '!', completes at once; the code reports the result
# as its error.
#
# expect: ^block "hostile" returned an error: matched=false \(Execute is at \S+:\d+\)$

flow "go_regexp_linear" {}

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
      re := regexp.MustCompile(`(a+)+$`)
      matched := re.MatchString(strings.Repeat("a", 30) + "!")
      return nil, fmt.Errorf("matched=%v", matched)
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
