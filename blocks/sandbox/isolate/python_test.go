package isolate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
	"github.com/zclconf/go-cty/cty"
)

// needPython skips a test without an interpreter, except in CI.
func needPython(t testing.TB) {
	t.Helper()
	if _, err := pyrun.Find(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs python: %v", err)
		}
		t.Skip(err)
	}
}

// pyBlock is block "p" with input "n" (number) and output "out" (any); the
// code's first line is line 6 of flow.hcl.
func pyBlock(t testing.TB, py string) *blocks.Block {
	return block(t, `block "p" {
  runtime = "python"
  input "n" { type = number }
  output "out" { type = any }
  source = <<-PY
`+py+`
  PY
}
`)
}

func TestPythonCalls(t *testing.T) {
	needPython(t)
	p := newPool(t, Options{Size: 2})
	b := pyBlock(t, "def execute(input, ctx):\n    return {\"out\": {\"twice\": input[\"n\"] * 2, \"type\": type(input[\"n\"]).__name__, \"step\": ctx.step}}")
	for i := range 5 {
		v, err := run(t, p, b, float64(i), 20*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		want := cty.ObjectVal(map[string]cty.Value{"twice": cty.NumberIntVal(int64(2 * i)), "type": cty.StringVal("int"), "step": cty.StringVal("s")})
		if !v.RawEquals(want) {
			t.Fatalf("got %#v, want %#v", v, want)
		}
	}
	if n := p.Spawned(); n != 1 {
		t.Errorf("spawned %d workers for sequential calls, want 1", n)
	}
}

func TestPythonErrors(t *testing.T) {
	needPython(t)
	p := newPool(t, Options{Size: 1})
	b := pyBlock(t, "def execute(input, ctx):\n    print('about to fail', input['n'])\n    raise ValueError('bad %d' % input['n'])")
	var lines []string
	call := callOf(b, 7)
	call.Log = func(l string) { lines = append(lines, l) }
	_, err := p.Execute(context.Background(), call)
	if err == nil || err.Error() != `block "p" line 8: ValueError: bad 7` {
		t.Fatalf("error %v", err)
	}
	want := []string{"about to fail 7", "Traceback (most recent call last):", "  line 8, in execute", "ValueError: bad 7"}
	if !slices.Equal(lines, want) {
		t.Fatalf("log %q", lines)
	}
}

// escape is Python that finds the interpreter's own __import__ past the
// import guard, as hostile code would.
const escape = `def real_import():
    for c in ().__class__.__base__.__subclasses__():
        if c.__name__ == "_wrap_close":
            return c.__init__.__globals__["__builtins__"]["__import__"]
`

// TestPythonConfinement: with the audit hook off, the operating system
// alone refuses what python code must not do.
func TestPythonConfinement(t *testing.T) {
	needPython(t)
	for _, audit := range []bool{false, true} {
		p := newPool(t, Options{Size: 1, noAudit: !audit})
		var notices []string
		p.opts.Notice = func(s string) { notices = append(notices, s) }
		b := pyBlock(t, escape+`
def attempt(f):
    try:
        f()
        return "allowed"
    except BaseException as e:
        return type(e).__name__ + ": " + str(e)

def execute(input, ctx):
    imp = real_import()
    os, socket = imp("os"), imp("socket")
    return {"out": {
        "read": attempt(lambda: open("/etc/passwd").read()),
        "read_os": attempt(lambda: os.read(os.open("/etc/passwd", os.O_RDONLY), 10)),
        "write": attempt(lambda: open("/tmp/flowctl-python-probe", "w").write("x")),
        "socket": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
        "fork": attempt(lambda: os.fork()),
        "system": attempt(lambda: os.system("true") == 0 or 1/0),
        "exec": attempt(lambda: os.execv("/bin/true", ["true"])),
        "env": dict(os.environ),
    }}`)
		v, err := run(t, p, b, 1, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for k, x := range v.AsValueMap() {
			if k == "env" {
				if x.LengthInt() > 1 || (x.LengthInt() == 1 && !x.Type().HasAttribute("LC_CTYPE")) {
					t.Errorf("audit %v: the environment is %#v", audit, x)
				}
				continue
			}
			got[k] = x.AsString()
			if got[k] == "allowed" {
				t.Errorf("audit %v: %s was allowed", audit, k)
			}
		}
		t.Logf("audit %v: %v; notices %q", audit, got, notices)
		if len(notices) > 0 {
			t.Errorf("the worker runs without: %q", notices)
		}
	}
}

// pyCall runs one call of b with inputs and a timeout that starts when a
// worker takes it, as the runtime gives it.
func pyCall(t *testing.T, p *Pool, b *blocks.Block, in map[string]cty.Value, timeout time.Duration) (cty.Value, error) {
	t.Helper()
	call := &blocks.Call{Block: b, Inputs: in, Outputs: b.Outputs, Step: "s[1]", Attempt: 2, Timeout: timeout}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := p.Execute(ctx, call)
	if err != nil {
		return cty.NilVal, err
	}
	return res.Outputs["out"], nil
}

func num(n float64) map[string]cty.Value { return map[string]cty.Value{"n": cty.NumberFloatVal(n)} }

func TestPythonValuesAndContext(t *testing.T) {
	needPython(t)
	p := newPool(t, Options{Size: 1})
	b := pyBlock(t, `import math
seen = []

def execute(input, ctx):
    seen.append(1)
    n = input["n"]
    return {"out": {
        "type": type(n).__name__, "n": n, "calls_seen": len(seen),
        "step": ctx.step, "attempt": ctx["attempt"], "left": 0 < ctx.remaining() <= 61,
        "tuple": (1, "a", None, True), "big": 10 ** 30,
    }}`)
	for _, tc := range []struct {
		n    float64
		want string
	}{{3, "int"}, {2.5, "float"}, {1e21, "int"}, {-4, "int"}} {
		v, err := pyCall(t, p, b, num(tc.n), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		m := v.AsValueMap()
		if got := m["type"].AsString(); got != tc.want {
			t.Errorf("%g arrived as %s, want %s", tc.n, got, tc.want)
		}
		f, _ := m["n"].AsBigFloat().Float64()
		if f != tc.n {
			t.Errorf("%g came back as %g", tc.n, f)
		}
		// Each call runs the code's top level in fresh globals.
		if !m["calls_seen"].RawEquals(cty.NumberIntVal(1)) || m["step"].AsString() != "s[1]" ||
			!m["attempt"].RawEquals(cty.NumberIntVal(2)) || !m["left"].True() {
			t.Errorf("got %#v", m)
		}
		if big := m["big"].AsBigFloat().Text('f', 0); big != "1000000000000000000000000000000" {
			t.Errorf("10**30 came back as %s", big)
		}
		if m["tuple"].LengthInt() != 4 {
			t.Errorf("tuple came back as %#v", m["tuple"])
		}
	}
	if p.Spawned() != 1 {
		t.Errorf("spawned %d workers, want 1", p.Spawned())
	}
}

func TestPythonAsync(t *testing.T) {
	needPython(t)
	p := newPool(t, Options{Size: 1})
	for name, code := range map[string]string{
		"no loop": "async def double(x):\n    return x * 2\n\nasync def execute(inputs, context):\n    return {\"out\": await double(inputs[\"n\"])}",
		"asyncio": "import asyncio\n\nasync def double(x):\n    await asyncio.sleep(0.01)\n    return x * 2\n\nasync def execute(inputs, context):\n    a, b = await asyncio.gather(double(inputs[\"n\"]), double(1))\n    return {\"out\": a + b - 2}",
	} {
		v, err := pyCall(t, p, pyBlock(t, code), num(21), time.Minute)
		if err != nil || !v.RawEquals(cty.NumberIntVal(42)) {
			t.Errorf("%s: %#v, %v", name, v, err)
		}
	}
}

func TestPythonStopped(t *testing.T) {
	needPython(t)
	p := newPool(t, Options{Size: 1})
	for name, code := range map[string]string{
		"loop":     "def execute(input, ctx):\n    while True:\n        pass",
		"swallows": "def execute(input, ctx):\n    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass",
	} {
		_, err := pyCall(t, p, pyBlock(t, code), num(1), 500*time.Millisecond)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: error %v, want a timeout", name, err)
		}
	}
	ok := pyBlock(t, "def execute(input, ctx):\n    return {'out': input['n']}")
	if v, err := pyCall(t, p, ok, num(3), time.Minute); err != nil || !v.RawEquals(cty.NumberIntVal(3)) {
		t.Fatalf("after the timeouts: %#v, %v", v, err)
	}
}

func TestPythonFailures(t *testing.T) {
	needPython(t)
	p := newPool(t, Options{Size: 2, Memory: 256 << 20})
	for _, tc := range []struct{ name, code, want string }{
		{"memory", "def execute(input, ctx):\n    return {'out': len('x' * (1 << 40))}", `^block "p" exceeded its memory limit$`},
		{"growth", "def execute(input, ctx):\n    keep = []\n    while True:\n        keep.append(bytearray(1 << 20))", `^block "p" exceeded its memory limit$`},
		{"recursion", "def f(n):\n    return f(n + 1)\n\ndef execute(input, ctx):\n    return {'out': f(0)}", `^block "p" line 7: RecursionError: maximum recursion depth exceeded`},
		{"exit", "def execute(input, ctx):\n    raise SystemExit(3)", `^block "p" line 7: raised SystemExit: 3; a python block returns its outputs`},
		{"nan", "def execute(input, ctx):\n    return {'out': [1.0, float('nan')]}", `^block "p": output "out" holds NaN, which is not a number a flow can hold$`},
		{"set", "def execute(input, ctx):\n    return {'out': {1, 2}}", `^block "p": output "out" holds a set, which has no JSON form`},
		{"cycle", "def execute(input, ctx):\n    a = []\n    a.append(a)\n    return {'out': a}", `^block "p": output "out" refers to itself$`},
		{"not a dict", "def execute(input, ctx):\n    return [1]", `^block "p": execute must return a dict with the outputs out; it returned \[1\]$`},
		{"missing", "def execute(input, ctx):\n    return {'other': 1}", `^block "p": execute returned no output "out"$`},
		{"threads", escape + "def spin():\n    while True:\n        pass\n\ndef execute(input, ctx):\n    real_import()('_thread').start_new_thread(spin, ())\n    return {'out': 1}",
			`^block "p": execute returned with 1 thread of its own still running; a python block may not leave threads behind$`},
		{"builtins", escape + "def execute(input, ctx):\n    b = real_import()('builtins')\n    b.len = lambda x: 0\n    return {'out': 1}",
			`^block "p": changed the interpreter's builtins \(replaced the builtin len\)`},
		{"import", "def execute(input, ctx):\n    import os\n    return {'out': 1}", `^block "p" line 7: ImportError: python blocks cannot import os; they may import .*json`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pyCall(t, p, pyBlock(t, tc.code), num(1), time.Minute)
			if err == nil || !regexp.MustCompile(tc.want).MatchString(err.Error()) {
				t.Fatalf("error %v, want /%s/", err, tc.want)
			}
		})
	}
	ok := pyBlock(t, "def execute(input, ctx):\n    return {'out': len([1, 2])}")
	if v, err := pyCall(t, p, ok, num(3), time.Minute); err != nil || !v.RawEquals(cty.NumberIntVal(2)) {
		t.Fatalf("after the failures: %#v, %v", v, err)
	}
}

// TestPythonPipelined: many calls at once, through a worker or two, each
// with its own inputs and result.
func TestPythonPipelined(t *testing.T) {
	needPython(t)
	p := newPool(t, Options{Size: 2})
	b := pyBlock(t, "def execute(input, ctx):\n    return {'out': input['n'] * 3}")
	var wg sync.WaitGroup
	errs := make(chan error, 300)
	for i := range 300 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := pyCall(t, p, b, num(float64(i)), time.Minute)
			if err == nil && !v.RawEquals(cty.NumberIntVal(int64(3*i))) {
				err = fmt.Errorf("call %d: %#v", i, v)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := p.Spawned(); n > 2 {
		t.Errorf("spawned %d workers for one block, want at most 2", n)
	}
}

// TestUnconfinable: where workers cannot be confined (forced here), python
// and compiled go blocks are refused unless the pool runs them unconfined;
// interpreted go and js blocks run as ever.
func TestUnconfinable(t *testing.T) {
	needPython(t)
	t.Setenv(envForceUnconfinable, "1")
	p := newPool(t, Options{Size: 1})
	py := pyBlock(t, "def execute(input, ctx):\n    return {'out': input['n']}")
	_, err := pyCall(t, p, py, num(1), time.Minute)
	want := `block "p" was not run: python blocks run only in confined sandbox workers, and flowctl cannot confine them on ` + Platform() +
		` (it has no seccomp system call filter, Landlock file rules, network namespace or resource limits (memory, CPU time, open files) here); run with --unconfined (or FLOWCTL_UNCONFINED=1) to run them anyway`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v", err)
	}
	if p.Spawned() != 0 {
		t.Errorf("a worker was started")
	}
	js := jsBlock(t, `function execute(input) { return { out: input.n } }`)
	if v, err := run(t, p, js, 2, time.Minute); err != nil || !v.RawEquals(cty.NumberIntVal(2)) {
		t.Fatalf("js: %#v, %v", v, err)
	}
	var notices []string
	u := newPool(t, Options{Size: 1, Unconfined: true, Notice: func(s string) { notices = append(notices, s) }})
	if v, err := pyCall(t, u, py, num(4), time.Minute); err != nil || !v.RawEquals(cty.NumberIntVal(4)) {
		t.Fatalf("unconfined: %#v, %v", v, err)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "without any confinement (--unconfined)") {
		t.Errorf("notices %q", notices)
	}
}
