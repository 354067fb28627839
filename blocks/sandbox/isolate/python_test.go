package isolate

import (
	"context"
	"os"
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
	if len(lines) != 1 || lines[0] != "about to fail 7" {
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
