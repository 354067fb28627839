# A goroutine bomb without go statements: each goroutine that
# context.WithCancel starts for an unknown parent calls the parent's
# Done method, which starts two more. A go block's context functions
# accept only the context package's own Contexts: the first call panics on
# the block's own goroutine and the step fails at its line.
#
# expect: ^block "hostile" panicked at \S+:\d+: a go block's contexts must derive from the ctx Execute is given

flow "go_goroutine_bomb_via_context" {}

block "hostile" {
  runtime = "go"
  output "out" {
    type = any
  }
  source = <<-GO
    package block

    import (
      "context"
      "time"
    )

    type fork struct {
      done  chan struct{}
      calls *int
    }

    func newFork() fork { return fork{make(chan struct{}), new(int)} }

    func (f fork) Deadline() (time.Time, bool) { return time.Time{}, false }
    func (f fork) Err() error                  { return nil }
    func (f fork) Value(key any) any           { return nil }

    // Done is called twice by WithCancel itself, then on the goroutine it
    // starts: that call forks.
    func (f fork) Done() <-chan struct{} {
      *f.calls++
      if *f.calls > 2 {
        var a, b context.Context = newFork(), newFork()
        context.WithCancel(a)
        context.WithCancel(b)
      }
      return f.done
    }

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      var c context.Context = newFork()
      context.WithCancel(c)
      for {
      }
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
