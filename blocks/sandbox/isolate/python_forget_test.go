package isolate

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/zclconf/go-cty/cty"
)

// forgetEscape is Python that reaches the interpreter's own modules past
// the import guard, as hostile code would: real("sys"), real("os").
const forgetEscape = `def real(name):
    for c in ().__class__.__base__.__subclasses__():
        if c.__name__ == "_wrap_close":
            return c.__init__.__globals__["__builtins__"]["__import__"](name)
`

// TestPythonCallsForget: a call finds the interpreter as the worker had it
// before any call, whatever the call before it changed there. Each case's
// block changes something when n is 0 and says what it sees when n is 1;
// the calls go through one worker. The cases that reach past the import
// guard run without the audit hook, which would refuse some of them: what
// the worker forgets must not depend on it. Each case runs again with
// workers that compare every dict they record, as where dicts' versions
// cannot be read.
func TestPythonCallsForget(t *testing.T) {
	needPython(t)
	for _, versions := range []bool{true, false} {
		t.Run(fmt.Sprintf("versions=%v", versions), func(t *testing.T) { testPythonCallsForget(t, !versions) })
	}
}

func testPythonCallsForget(t *testing.T, noVersions bool) {
	for _, tc := range []struct {
		name, imports, change, see string
		want                       cty.Value
		noAudit                    bool
	}{
		{name: "a module's attribute", imports: "import json",
			change: `json.kept = "secret"`, see: `getattr(json, "kept", "forgotten")`, want: cty.StringVal("forgotten")},
		{name: "a class's attribute", imports: "import json",
			change: `json.JSONEncoder.kept = "secret"; json.JSONEncoder.item_separator = "secret"`,
			see:    `[getattr(json.JSONEncoder, "kept", "forgotten"), json.JSONEncoder.item_separator]`,
			want:   cty.TupleVal([]cty.Value{cty.StringVal("forgotten"), cty.StringVal(", ")})},
		{name: "a function's keyword defaults", imports: "import json",
			change: `json.dumps.__kwdefaults__["indent"] = 4`, see: `json.dumps([1])`, want: cty.StringVal("[1]"), noAudit: true},
		{name: "a module's object", imports: "import json",
			change: `json._default_encoder.kept = "secret"`, see: `getattr(json._default_encoder, "kept", "forgotten")`,
			want: cty.StringVal("forgotten")},
		{name: "a module's list", imports: "import json",
			change: `json.__all__.append("secret")`, see: `"secret" in json.__all__`, want: cty.False},
		{name: "decimal precision", imports: "import decimal",
			change: `decimal.getcontext().prec = 3`, see: `str(decimal.Decimal(1) / 7)`,
			want: cty.StringVal("0.1428571428571428571428571429")},
		{name: "decimal's default context", imports: "import decimal",
			change: `decimal.DefaultContext.prec = 3`, see: `str(decimal.Context().prec)`, want: cty.StringVal("28")},
		{name: "random.seed", imports: "import random",
			// 0.6394267984578837 is random.seed(42)'s first random().
			change: `random.seed(42)`, see: `random.random() != 0.6394267984578837`, want: cty.True},
		{name: "print's attributes", change: `print.kept = "secret"`, see: `getattr(print, "kept", "forgotten")`,
			want: cty.StringVal("forgotten")},
		{name: "ctx.logger", change: `ctx.logger.kept = "secret"; type(ctx).kept = "secret"`,
			see:  `[getattr(ctx.logger, "kept", "forgotten"), getattr(ctx, "kept", "forgotten")]`,
			want: cty.TupleVal([]cty.Value{cty.StringVal("forgotten"), cty.StringVal("forgotten")})},
		{name: "sys.setrecursionlimit", imports: forgetEscape + `
def down(n):
    return 0 if n == 0 else down(n - 1) + 1
`, change: `real("sys").setrecursionlimit(50)`, see: `down(200)`, want: cty.NumberIntVal(200), noAudit: true},
		{name: "builtins patched", imports: forgetEscape,
			change: `real("sys").modules["__main__"]._BUILTINS["len"] = lambda x: "secret"`,
			see:    `len("abc")`, want: cty.NumberIntVal(3), noAudit: true},
		{name: "a module imported and changed", imports: forgetEscape,
			change: `import statistics; statistics.kept = "secret"; real("sys").modules["kept"] = statistics`,
			see:    `[getattr(__import__("statistics"), "kept", "forgotten"), "kept" in real("sys").modules]`,
			want:   cty.TupleVal([]cty.Value{cty.StringVal("forgotten"), cty.False}), noAudit: true},
		{name: "a file kept open", imports: forgetEscape + `
def kept():
    os = real("os")
    try:
        open("/tmp/flowctl-python-kept", "w")
        written = "written"
    except OSError as e:
        written = type(e).__name__
    r, w = os.pipe()
    os.write(w, b"secret")
    return written, r

def find(r):
    os = real("os")
    try:
        os.set_blocking(r, False)
        return os.read(r, 100).decode()
    except OSError as e:
        return type(e).__name__
`, change: `return {"out": kept()}`, see: `find(input["fd"])`,
			want: cty.StringVal("OSError"), noAudit: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(t, Options{Size: 1, noAudit: tc.noAudit, noVersions: noVersions})
			b := block(t, `block "p" {
  runtime = "python"
  input "n" { type = number }
  input "fd" {
    type    = number
    default = 0
  }
  output "out" { type = any }
  source = <<-PY
`+tc.imports+`
def execute(input, ctx):
    if input["n"] == 0:
        `+tc.change+`
        return {"out": None}
    return {"out": `+tc.see+`}
  PY
}
`)
			in := map[string]cty.Value{"n": cty.NumberIntVal(0), "fd": cty.NumberIntVal(0)}
			kept, err := pyCall(t, p, b, in, time.Minute)
			if err != nil {
				t.Fatalf("the call that changes: %v", err)
			}
			if !kept.IsNull() {
				// A file written in the temp directory is refused; the
				// read end of a pipe holding the secret is passed on.
				if w := kept.Index(cty.NumberIntVal(0)); !w.RawEquals(cty.StringVal("PermissionError")) {
					t.Errorf("writing a file in /tmp: %#v, want PermissionError", w)
				}
				in["fd"] = kept.Index(cty.NumberIntVal(1))
			}
			in["n"] = cty.NumberIntVal(1)
			got, err := pyCall(t, p, b, in, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if !got.RawEquals(tc.want) {
				t.Errorf("the next call saw %#v, want %#v", got, tc.want)
			}
			if n := p.Spawned(); n != 1 {
				t.Errorf("%d workers, want the one: the calls are to share it", n)
			}
		})
	}
}

// TestPythonSensitiveCallsHaveWorkersOfTheirOwn: a call given a sensitive
// value and one that is not never share a worker, so that what the first
// leaves where the runner does not reach (re's cache of patterns, here)
// cannot reach the second, whose outputs are not sensitive.
func TestPythonSensitiveCallsHaveWorkersOfTheirOwn(t *testing.T) {
	needPython(t)
	p := newPool(t, Options{Size: 1})
	b := pyBlock(t, `import re

def execute(input, ctx):
    if input["n"] == 0:
        re.compile("secret-pattern")
        return {"out": None}
    return {"out": [k[1] for k in list(re._cache) if "secret" in str(k[1])]}`)
	call := func(sensitive bool, n int64) cty.Value {
		t.Helper()
		c := &blocks.Call{Block: b, Inputs: map[string]cty.Value{"n": cty.NumberIntVal(n)}, Outputs: b.Outputs, Step: "s"}
		if sensitive {
			c.Sensitive = map[string]bool{"n": true}
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := p.Execute(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		return res.Outputs["out"]
	}
	call(true, 0)
	if got := call(false, 1); !got.RawEquals(cty.EmptyTupleVal) {
		t.Errorf("a call without sensitive inputs saw %#v, left by one with", got)
	}
	if n := p.Spawned(); n != 2 {
		t.Errorf("%d workers, want 2: one for the sensitive call, one for the other", n)
	}
}

// TestPythonFunctionsOfModulesStay: a call may not replace the defaults or
// code of a module's function, which later calls would run; its own
// functions, and those it makes through the standard library, are its to
// change.
func TestPythonFunctionsOfModulesStay(t *testing.T) {
	needPython(t)
	p := newPool(t, Options{Size: 1})
	b := pyBlock(t, `import json, collections

def attempt(f):
    try:
        f()
        return "allowed"
    except PermissionError as e:
        return str(e)

def mine(a=1):
    return a

def execute(input, ctx):
    Point = collections.namedtuple("Point", "x y")
    def theirs():
        json.dumps.__defaults__ = (1,)
    def point():
        Point.__new__.__defaults__ = (0, 0)
    def own():
        mine.__defaults__ = (2,)
    return {"out": [attempt(theirs), attempt(point), attempt(own), mine()]}`)
	got, err := run(t, p, b, 1, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	want := cty.TupleVal([]cty.Value{cty.StringVal("python blocks cannot change what their other calls share (__defaults__ of dumps)"),
		cty.StringVal("allowed"), cty.StringVal("allowed"), cty.NumberIntVal(2)})
	if !got.RawEquals(want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

// TestPythonStdinReplaced: a call that puts a pipe of its own in place of
// the worker's standard input, for a later call to read, fails, and its
// worker is replaced.
func TestPythonStdinReplaced(t *testing.T) {
	needPython(t)
	p := newPool(t, Options{Size: 1, noAudit: true})
	b := pyBlock(t, forgetEscape+`
def execute(input, ctx):
    os = real("os")
    if input["n"] == 0:
        r, w = os.pipe()
        os.write(w, b"secret")
        os.dup2(r, 0)
        return {"out": "kept"}
    os.set_blocking(0, False)
    try:
        return {"out": os.read(0, 100).decode()}
    except OSError as e:
        return {"out": type(e).__name__}`)
	_, err := run(t, p, b, 0, time.Minute)
	if err == nil || err.Error() != `block "p": replaced the worker's file descriptor 0; a python block may not change what its other calls share` {
		t.Fatalf("the call that replaces fd 0: %v", err)
	}
	got, err := run(t, p, b, 1, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if got.RawEquals(cty.StringVal("secret")) {
		t.Errorf("the next call read %#v from its standard input", got)
	}
	if n := p.Spawned(); n != 2 {
		t.Errorf("%d workers, want 2: the first replaced", n)
	}
}
