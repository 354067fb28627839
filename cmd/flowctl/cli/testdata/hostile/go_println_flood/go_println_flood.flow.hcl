# Ten million lines with the println built-in, which writes to the
# step's log: capped, so flowctl's memory stays bounded. The loop is
# stopped at the timeout, or ends and returns an error to say so.
#
# expect: ^(block "hostile" returned an error: logged 1e7 lines|(block "hostile" (line \d+: )?)?exceeded its (2s )?timeout\b)

flow "go_println_flood" {}

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
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      for i := 0; i < 10000000; i++ {
        println("line", i)
      }
      return nil, errors.New("logged 1e7 lines")
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
