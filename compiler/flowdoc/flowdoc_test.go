package flowdoc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
)

const docFlow = `flow "greet" {
  description = "Greets"
}

input "name" {
  type    = string
  default = "world"
}

step "hello" {
  use   = "value"
  value = "hello ${input.name}"
}

step "ok" {
  use     = "approval"
  message = "Send it?"
  depends_on = [step.hello]
}

output "text" {
  value = step.hello.value
}

trigger "form" {
  webhook {
    path   = "/hooks/greet"
    verify = "none"
  }
  inputs  = { name = request.body.name }
  respond = output.text
}
`

// TestCollect: the documentation of a flow has its inputs with their
// defaults, outputs with their types, the blocks its steps use, its
// approvals and tests, paths relative to base, and the graph mermaid
// draws of it.
func TestCollect(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"greet.flow.hcl": docFlow,
		"greet.test.hcl": "test \"greets\" {\n  flow = \"greet.flow.hcl\"\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var drawn *StepGraph
	d, _, diags := Collect([]string{dir}, nil, dir, func(p *compiler.Program, g *StepGraph) string {
		drawn = g
		return "graph of " + p.Flow.Name
	})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if len(d.Flows) != 1 {
		t.Fatalf("%d flows", len(d.Flows))
	}
	f := d.Flows[0]
	var got []string
	got = append(got, f.Name, f.File, f.Description, f.Mermaid, fmt.Sprint(f.Steps))
	for _, in := range f.Inputs {
		got = append(got, fmt.Sprintf("input %s %s default %s", in.Name, in.Type, *in.Default))
	}
	for _, o := range f.Outputs {
		got = append(got, fmt.Sprintf("output %s %s", o.Name, o.Type))
	}
	for _, b := range f.Blocks {
		got = append(got, fmt.Sprintf("block %s %v", b.Name, b.Steps))
	}
	for _, a := range f.Approvals {
		got = append(got, fmt.Sprintf("approval %s %q", a.Step, a.Message))
	}
	for _, tt := range f.Tests {
		got = append(got, fmt.Sprintf("test %s %s", tt.Name, tt.File))
	}
	for _, tr := range f.Triggers {
		got = append(got, fmt.Sprintf("trigger %s %s %s %s %s", tr.Name, tr.Method, tr.Path, tr.Verify, tr.Respond))
	}
	want := []string{"greet", "greet.flow.hcl", "Greets", "graph of greet", "2",
		`input name string default "world"`, "output text string",
		"block value [hello]", "block approval [ok]", `approval ok "Send it?"`, "test greets greet.test.hcl",
		"trigger form POST /hooks/greet none output.text"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if drawn == nil || len(drawn.Root.Nodes) != 2 || len(drawn.Edges) != 1 || drawn.Edges[0].From != "hello" || drawn.Edges[0].To != "ok" {
		t.Errorf("the graph drawn: %+v", drawn)
	}
}

// TestNewStepGraph: a step that uses a flow is one node, or with expand a
// cluster of that flow's steps, whose first and last steps the edges
// reach.
func TestNewStepGraph(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("sub.flow.hcl", "flow \"sub\" {}\n\nstep \"a\" {\n  use   = \"value\"\n  value = 1\n}\n\nstep \"b\" {\n  use   = \"value\"\n  value = step.a.value\n}\n\noutput \"v\" {\n  value = step.b.value\n}\n")
	main := write("main.flow.hcl", "flow \"main\" {}\n\nstep \"call\" {\n  use = \"flow.sub\"\n}\n\nstep \"after\" {\n  use   = \"value\"\n  value = step.call.v\n}\n")
	p, diags := compiler.Compile(main, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	edges := func(g *StepGraph) string {
		var out []string
		for _, e := range g.Edges {
			out = append(out, e.From+"->"+e.To)
		}
		return strings.Join(out, " ")
	}
	if g := NewStepGraph(p, false); len(g.Root.Nodes) != 2 || len(g.Root.Clusters) != 0 || edges(g) != "call->after" {
		t.Errorf("unexpanded: %d nodes, %d clusters, edges %s", len(g.Root.Nodes), len(g.Root.Clusters), edges(g))
	}
	g := NewStepGraph(p, true)
	if len(g.Root.Nodes) != 1 || len(g.Root.Clusters) != 1 || g.Root.Clusters[0].ID != "call" || len(g.Root.Clusters[0].Nodes) != 2 {
		t.Fatalf("expanded: %+v", g.Root)
	}
	if got := edges(g); got != "call/a->call/b call/b->after" {
		t.Errorf("expanded edges: %s", got)
	}
}

// TestCollectCollections: the documentation of a flow lists the
// collections it declares with the steps that name each.
func TestCollectCollections(t *testing.T) {
	dir := t.TempDir()
	src := `flow "find" {}

collection "notes" {
  dimensions  = 3
  description = "Our notes"
}

step "search" {
  use        = "vector_search"
  collection = collection.notes
  vector     = [1, 0, 0]
}
`
	if err := os.WriteFile(filepath.Join(dir, "find.flow.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	d, _, diags := Collect([]string{dir}, nil, dir, func(*compiler.Program, *StepGraph) string { return "" })
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	cs := d.Flows[0].Collections
	if len(cs) != 1 || cs[0].Name != "notes" || cs[0].Dimensions != 3 || cs[0].Distance != "cosine" || strings.Join(cs[0].Steps, ",") != "search" || cs[0].Description != "Our notes" {
		t.Errorf("collections: %+v", cs)
	}
}

// TestCollectLimits: the documentation of a flow lists its limits, each
// key as written.
func TestCollectLimits(t *testing.T) {
	dir := t.TempDir()
	src := `flow "limited" {}

input "customer" {
  type = string
}

concurrency {
  key   = input.customer
  limit = 2
}

rate_limit {
  key    = "all"
  limit  = 10
  period = "1m"
}

debounce {
  key    = lower(input.customer)
  period = "30s"
}

step "a" {
  use   = "value"
  value = input.customer
}
`
	if err := os.WriteFile(filepath.Join(dir, "limited.flow.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	d, _, diags := Collect([]string{dir}, nil, dir, func(*compiler.Program, *StepGraph) string { return "" })
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := fmt.Sprint(d.Flows[0].Limits)
	if want := `[{concurrency input.customer 2 } {rate_limit "all" 10 1m} {debounce lower(input.customer) 0 30s}]`; got != want {
		t.Errorf("limits: %s, want %s", got, want)
	}
}
