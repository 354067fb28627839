package isolate

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/gobuild"
	"github.com/zclconf/go-cty/cty"
)

// compiledBlock is goBlock with engine = "compiled", built before it is
// returned (a first build with a cold Go build cache takes a while, which
// is no call's time).
func compiledBlock(t *testing.T, imports, body string) *blocks.Block {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("compiled go blocks need the Go toolchain on PATH")
	}
	b := goBlock(t, imports, body)
	b.Def.Engine = "compiled"
	if _, err := gobuild.Default().Program(context.Background(), b.Def); err != nil {
		t.Fatalf("building: %v", err)
	}
	return b
}

// TestCompiledCalls: a compiled block gives what the interpreted one does,
// its print and println reach the call's log, and one worker serves many
// calls.
func TestCompiledCalls(t *testing.T) {
	body := `println("n is", input["n"])
print("no newline")
return map[string]any{"out": map[string]any{"twice": input["n"].(float64) * 2, "list": []any{1, "a", true, nil}}}, nil`
	c := compiledBlock(t, "", body)
	i := goBlock(t, "", body)
	p := newPool(t, Options{Size: 2})
	logs := map[string][]string{}
	for name, b := range map[string]*blocks.Block{"compiled": c, "interpreted": i} {
		var mu sync.Mutex
		call := callOf(b, 21)
		call.Log = func(line string) { mu.Lock(); logs[name] = append(logs[name], line); mu.Unlock() }
		res, err := p.Execute(context.Background(), call)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := cty.ObjectVal(map[string]cty.Value{"twice": cty.NumberIntVal(42), "list": cty.TupleVal([]cty.Value{
			cty.NumberIntVal(1), cty.StringVal("a"), cty.True, cty.NullVal(cty.DynamicPseudoType)})})
		if got := res.Outputs["out"]; !got.RawEquals(want) {
			t.Errorf("%s: out = %#v", name, got)
		}
	}
	if !slices.Equal(logs["compiled"], logs["interpreted"]) || len(logs["compiled"]) != 2 {
		t.Errorf("logs: compiled %q, interpreted %q", logs["compiled"], logs["interpreted"])
	}
	before := p.Spawned()
	for n := range 50 {
		if v, err := run(t, p, c, float64(n), time.Minute); err != nil || !v.GetAttr("twice").RawEquals(cty.NumberIntVal(int64(2*n))) {
			t.Fatalf("call %d: %#v, %v", n, v, err)
		}
	}
	if p.Spawned() != before {
		t.Errorf("50 calls started %d workers; the program's worker serves them all", p.Spawned()-before)
	}
}

// TestCompiledFailures: errors, panics and outputs that do not fit are
// reported as the interpreter reports them, and the worker goes on after
// an error.
func TestCompiledFailures(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	cases := []struct{ name, imports, body, want string }{
		{"error", `"errors"`, `return nil, errors.New("no good")`, `block "g" returned an error: no good (Execute is at flow.hcl:13)`},
		{"panic", ``, "var m map[string]int\nm[\"x\"] = 1\nreturn nil, nil", `block "g" panicked at flow.hcl:15: assignment to entry in nil map`},
		{"missing output", ``, `return map[string]any{}, nil`, `block "g" returned no output "out"`},
		{"nil map", ``, `return nil, nil`, `block "g" returned a nil map and no error`},
		{"not JSON", ``, `return map[string]any{"out": func() {}}, nil`, `returned output "out", which is not JSON-shaped: json: unsupported type: func()`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, b := range []*blocks.Block{compiledBlock(t, c.imports, c.body), goBlock(t, c.imports, c.body)} {
				_, err := run(t, p, b, 1, time.Minute)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s (engine %q): error %v, want %q", c.name, b.Def.Engine, err, c.want)
				}
			}
		})
	}
}

// TestCompiledHostileCode: a compiled block that spins, exhausts its
// memory or its stack fails its step with a clear error; the pool goes
// on.
func TestCompiledHostileCode(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory does not fit under the workers' address-space limit")
	}
	p := newPool(t, Options{Size: 2, Memory: 128 << 20})
	cases := []struct {
		name, body string
		timeout    time.Duration
		want       []string // one of them
	}{
		{"spin", "for {\n}", 500 * time.Millisecond, []string{"exceeded its timeout"}},
		{"make", `b := make([]byte, 1<<40); return map[string]any{"out": len(b)}, nil`, time.Minute, []string{"memory"}},
		{"grow", "var keep [][]byte\nfor {\n keep = append(keep, make([]byte, 1<<20))\n}", time.Minute, []string{"memory"}},
		{"recursion", "var f func(int) int\nf = func(n int) int { return f(n+1) + 1 }\nreturn map[string]any{\"out\": f(0)}, nil", time.Minute, []string{"stack", "memory"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := compiledBlock(t, "", c.body)
			_, err := run(t, p, b, 1, c.timeout)
			if err == nil {
				t.Fatal("no error")
			}
			if !slices.ContainsFunc(c.want, func(w string) bool { return strings.Contains(err.Error(), w) }) {
				t.Errorf("error %q says none of %q", err, c.want)
			}
			if c.name == "spin" && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a timeout that does not wrap context.DeadlineExceeded: %v", err)
			}
		})
	}
	ok := compiledBlock(t, "", `return map[string]any{"out": input["n"]}, nil`)
	if v, err := run(t, p, ok, 3, time.Minute); err != nil || !v.RawEquals(cty.NumberIntVal(3)) {
		t.Fatalf("after the hostile code: %#v, %v", v, err)
	}
}

// TestCompiledHugeOutputs: a compiled program refuses outputs over the
// cap itself, so that flowctl does not read them (what it reads of a
// program's reply is bounded by the cap and programReplyRoom).
func TestCompiledHugeOutputs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory does not fit under the workers' address-space limit")
	}
	p := newPool(t, Options{Size: 1, MaxMessage: 2 << 20})
	refused := compiledBlock(t, `"strings"`, `return map[string]any{"out": strings.Repeat("x", 3<<20)}, nil`)
	_, err := run(t, p, refused, 1, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "returned more than 1048576 bytes of output (3145730 as JSON)") {
		t.Errorf("outputs over the cap: %v", err)
	}
	ok := compiledBlock(t, "", `return map[string]any{"out": input["n"]}, nil`)
	if v, err := run(t, p, ok, 3, time.Minute); err != nil || !v.RawEquals(cty.NumberIntVal(3)) {
		t.Fatalf("after the huge outputs: %#v, %v", v, err)
	}
}

// TestCompiledWorkersAreConfinedAlike: a compiled block's worker runs
// without exactly the confinement layers the interpreter's worker runs
// without on this system (none where the kernel has them all).
func TestCompiledWorkersAreConfinedAlike(t *testing.T) {
	missing := func(b *blocks.Block) []string {
		var mu sync.Mutex
		var said []string
		p := newPool(t, Options{Size: 1, Notice: func(s string) { mu.Lock(); said = append(said, s); mu.Unlock() }})
		if _, err := run(t, p, b, 1, time.Minute); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		slices.Sort(said)
		return said
	}
	body := `return map[string]any{"out": 1}, nil`
	c, i := missing(compiledBlock(t, "", body)), missing(goBlock(t, "", body))
	if !slices.Equal(c, i) {
		t.Errorf("compiled workers run without %q; interpreted ones without %q", c, i)
	}
}
