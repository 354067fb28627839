# text/template is left out because (*Template).ParseFiles reads files.
#
# Refused by validate and by apply's compilation: no step runs.

flow "compile_go_text_template" {}

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
      "text/template" // want: Forbidden import: Block "hostile": The code imports "text/template"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      t, err := template.ParseFiles("/etc/passwd")
      if err != nil {
        return nil, err
      }
      var b strings.Builder
      err = t.Execute(&b, nil)
      return map[string]any{"out": b.String()}, err
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
