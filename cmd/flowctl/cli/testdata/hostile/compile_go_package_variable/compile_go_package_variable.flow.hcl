# Changing a variable of an allowed package (for every block of the
# process): refused at its line.
#
# Refused by validate and by apply's compilation: no step runs.

flow "compile_go_package_variable" {}

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
      base64.StdEncoding = base64.URLEncoding // want: Change to a package variable
      return nil, nil
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
