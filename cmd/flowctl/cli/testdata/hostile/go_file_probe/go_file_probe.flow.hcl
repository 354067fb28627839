# No allowed package opens files, except that time.LoadLocation reads
# time zone files: it refuses paths, and the worker can read no file
# anyway. The code reports what it could load.
#
# expect: ^block "hostile" returned an error: loaded: none \(Execute is at \S+:\d+\)$

flow "go_file_probe" {}

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
      "strings"
      "time"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      var loaded []string
      for _, name := range []string{"../../../../etc/passwd", "/etc/passwd", "../../../proc/self/environ", "/proc/self/environ"} {
        if _, err := time.LoadLocation(name); err == nil {
          loaded = append(loaded, name)
        }
      }
      if len(loaded) == 0 {
        loaded = []string{"none"}
      }
      return nil, fmt.Errorf("loaded: %s", strings.Join(loaded, ", "))
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
