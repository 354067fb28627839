package engine

import (
	"math"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
)

// TestWarmWorkers: a run's sandbox workers are started ahead for its js
// and interpreted go blocks only: all of them for a for_each, one for a
// single call, none for builtins or compiled go.
func TestWarmWorkers(t *testing.T) {
	const js = `
block "j" {
  runtime = "js"
  source  = "function execute(input) { return { y: 1 } }"
  output "y" {
    type = number
  }
}
`
	const gob = `
block "g" {
  runtime = "go"
  engine  = "compiled"
  source  = <<-GO
    package block

    import "context"

    func Execute(ctx context.Context, in map[string]any) (map[string]any, error) {
      return map[string]any{"y": 1}, nil
    }
  GO
  output "y" {
    type = number
  }
}
`
	for _, c := range []struct {
		src, engine string
		want        int
	}{
		{`step "v" {
  use   = "value"
  value = 1
}`, "", 0},
		{js + `step "one" {
  use = "j"
}`, "", 1},
		{js + `step "many" {
  use      = "j"
  for_each = [1, 2, 3]
}`, "", math.MaxInt32},
		{gob + `step "compiled" {
  use      = "g"
  for_each = [1, 2]
}`, "", 0},
		{gob + `step "interpreted" {
  use      = "g"
  for_each = [1, 2]
}`, lang.EngineInterpreted, math.MaxInt32},
	} {
		prog, diags := compiler.Compile("f.flow.hcl", compiler.Options{Parser: lang.NewParser(), Source: []byte("flow \"f\" {}\n" + c.src)})
		if diags.HasErrors() {
			t.Fatalf("%s\n%s", c.src, diags)
		}
		if got := WarmWorkers(prog, c.engine); got != c.want {
			t.Errorf("%s (engine %q): %d workers, want %d", c.src, c.engine, got, c.want)
		}
	}
}
