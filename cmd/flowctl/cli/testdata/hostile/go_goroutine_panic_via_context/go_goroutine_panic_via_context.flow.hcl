# go statements are refused, but context.WithCancel starts a goroutine of
# its own for a parent context it does not know, and calls the parent's
# Err method there: interpreted code on a goroutine nobody recovers. A go
# block's context functions accept only the context package's own
# Contexts, so the call panics on the block's own goroutine instead, and
# the step fails with an error at its line (in process too).
#
# expect: ^block "hostile" panicked at \S+:\d+: a go block's contexts must derive from the ctx Execute is given

flow "go_goroutine_panic_via_context" {}

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
      "time"
    )

    type evil struct{ done chan struct{} }

    func (e evil) Deadline() (time.Time, bool) { return time.Time{}, false }
    func (e evil) Done() <-chan struct{}       { return e.done }
    func (e evil) Err() error                  { panic("boom on another goroutine") }
    func (e evil) Value(key any) any           { return nil }

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      done := make(chan struct{})
      c, cancel := context.WithCancel(evil{done})
      defer cancel()
      close(done)
      <-c.Done()
      return nil, errors.New("survived")
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
