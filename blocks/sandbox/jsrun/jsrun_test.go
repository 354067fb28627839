package jsrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// flowBlock decodes the first block definition of a flow file's text,
// written to dir (or kept in memory when dir is "").
func flowBlock(t testing.TB, dir, text string) *blocks.Block {
	t.Helper()
	name := "flow.hcl"
	if dir != "" {
		name = filepath.Join(dir, "flow.hcl")
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bs, diags := blocks.ParseBlocks([]byte(text), name)
	if diags.HasErrors() || len(bs) == 0 {
		t.Fatal(diags)
	}
	return bs[0]
}

// jsBlock is a block "x" with the given JavaScript, an input "in" of type
// any and an output "out" of type any. The source's first line is line 7
// of flow.hcl.
func jsBlock(t testing.TB, js string) *blocks.Block {
	return flowBlock(t, "", blockText(js))
}

func blockText(js string) string {
	return `# a flow
block "x" {
  runtime = "js"
  input "in" {}
  output "out" {}
  source = <<-JS
` + indent(js) + `
  JS
}
`
}

func indent(s string) string {
	lines := strings.Split(strings.TrimPrefix(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "    " + l
		}
	}
	return strings.Join(lines, "\n")
}

type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) log(s string) {
	l.mu.Lock()
	l.lines = append(l.lines, s)
	l.mu.Unlock()
}

func newCall(b *blocks.Block, in cty.Value) *blocks.Call {
	return &blocks.Call{Block: b, Inputs: map[string]cty.Value{"in": in}, Outputs: b.Outputs, Step: "s"}
}

// run calls a block with in and returns the out output.
func run(t testing.TB, e *Executor, b *blocks.Block, in cty.Value) (cty.Value, error) {
	t.Helper()
	res, err := e.Execute(context.Background(), newCall(b, in))
	if err != nil {
		return cty.NilVal, err
	}
	return res.Outputs["out"], nil
}

func mustRun(t testing.TB, e *Executor, b *blocks.Block, in cty.Value) cty.Value {
	t.Helper()
	v, err := run(t, e, b, in)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func wantError(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one with %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

func TestTrivialCall(t *testing.T) {
	e := NewExecutor()
	b := jsBlock(t, `function execute(input, ctx) { return { out: input.in + 1 } }`)
	got := mustRun(t, e, b, cty.NumberIntVal(41))
	if !got.RawEquals(cty.NumberIntVal(42)) {
		t.Fatalf("got %#v", got)
	}
}

func TestContext(t *testing.T) {
	e := NewExecutor()
	b := jsBlock(t, `
function execute(input, ctx) {
  "use strict";
  let frozen = false;
  try { ctx.step = "other" } catch (e) { frozen = e instanceof TypeError }
  return { out: [ctx.step, frozen, Object.isFrozen(ctx), Object.keys(ctx)] }
}`)
	call := newCall(b, cty.NullVal(cty.DynamicPseudoType))
	call.Step = "fetch[3]"
	res, err := e.Execute(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	want := cty.TupleVal([]cty.Value{cty.StringVal("fetch[3]"), cty.True, cty.True, cty.TupleVal([]cty.Value{cty.StringVal("step")})})
	if got := res.Outputs["out"]; !got.RawEquals(want) {
		t.Fatalf("got %#v", got)
	}
}

func TestPromiseResult(t *testing.T) {
	e := NewExecutor()
	b := jsBlock(t, `
function execute(input) {
  return Promise.resolve(input.in)
    .then(n => new Promise(resolve => resolve(n * 2)))
    .then(n => ({ out: n + 1 }))
}`)
	if got := mustRun(t, e, b, cty.NumberIntVal(20)); !got.RawEquals(cty.NumberIntVal(41)) {
		t.Fatalf("got %#v", got)
	}
}

func TestAsyncFunction(t *testing.T) {
	e := NewExecutor()
	b := jsBlock(t, `
async function twice(n) { return n * 2 }
async function execute(input) {
  const a = await twice(input.in)
  const [b, c] = await Promise.all([twice(a), twice(1)])
  return { out: b + c }
}`)
	if got := mustRun(t, e, b, cty.NumberIntVal(5)); !got.RawEquals(cty.NumberIntVal(22)) {
		t.Fatalf("got %#v", got)
	}
}

func TestPromiseNeverSettles(t *testing.T) {
	e := NewExecutor()
	b := jsBlock(t, `function execute() { return new Promise(() => {}) }`)
	_, err := run(t, e, b, cty.NullVal(cty.DynamicPseudoType))
	wantError(t, err, `block "x"`, "returned a Promise that never settled")
}

func TestExceptionMappedLine(t *testing.T) {
	e := NewExecutor()
	// The source's first line is line 7 of flow.hcl, so its line 3 is
	// line 9.
	b := jsBlock(t, `
function execute(input) {
  const a = input.missing
  return { out: a.b }
}`)
	_, err := run(t, e, b, cty.NullVal(cty.DynamicPseudoType))
	wantError(t, err, `block "x" line 9: TypeError: Cannot read property 'b' of undefined`)
	var je *Error
	if !errors.As(err, &je) || je.Line != 9 || je.Block != "x" {
		t.Fatalf("error %#v", err)
	}

	b = jsBlock(t, `
function check(n) {
  if (n < 0) throw new RangeError("negative: " + n)
  return n
}
function execute(input) { return { out: check(input.in) } }`)
	_, err = run(t, e, b, cty.NumberIntVal(-1))
	wantError(t, err, `block "x" line 8: RangeError: negative: -1`)

	b = jsBlock(t, `
function execute(input) {
  throw { code: 7 }
}`)
	_, err = run(t, e, b, cty.NumberIntVal(-1))
	wantError(t, err, `block "x" line 8: threw {"code":7}`)

	// Exceptions in the top-level code.
	b = jsBlock(t, `
const table = null
const first = table[0]
function execute() { return { out: first } }`)
	_, err = run(t, e, b, cty.NumberIntVal(-1))
	wantError(t, err, `block "x" line 8: TypeError`)
}

func TestRejectionMappedLine(t *testing.T) {
	e := NewExecutor()
	b := jsBlock(t, `
async function execute(input) {
  await null
  throw new Error("no luck with " + input.in)
}`)
	_, err := run(t, e, b, cty.StringVal("this"))
	wantError(t, err, `block "x" line 9: Error: no luck with this`)

	b = jsBlock(t, `function execute() { return Promise.reject(42) }`)
	_, err = run(t, e, b, cty.StringVal("this"))
	wantError(t, err, `block "x": the Promise returned by execute was rejected with 42`)
}

func TestSyntaxError(t *testing.T) {
	dir := t.TempDir()
	text := blockText(`
function execute(input) {
  return { out: input.in + }
}`)
	b := flowBlock(t, dir, text)
	file := filepath.Join(dir, "flow.hcl")
	_, err := Compile(b.Def)
	wantError(t, err, fmt.Sprintf(`block "x" (%s:8): SyntaxError: Unexpected token }`, file))
	_, err = NewExecutor().Execute(context.Background(), newCall(b, cty.NumberIntVal(1)))
	wantError(t, err, fmt.Sprintf(`block "x" (%s:8): SyntaxError`, file))

	diags := Check(b.Def)
	if len(diags) != 1 || diags[0].Subject == nil {
		t.Fatalf("diagnostics %v", diags)
	}
	d := diags[0]
	// The error is at the "}" after "+", on the flow file's line 8, whose
	// indentation differs from the source's.
	line8 := strings.Split(text, "\n")[7]
	if s := d.Subject; s.Filename != file || s.Start.Line != 8 || s.Start.Column != strings.Index(line8, "}")+1 || text[s.Start.Byte:s.End.Byte] != "}" {
		t.Errorf("subject %#v (%q)", s, text[s.Start.Byte:s.End.Byte])
	}
	if !strings.Contains(d.Detail, `In block "x": SyntaxError: Unexpected token }`) {
		t.Errorf("detail %q", d.Detail)
	}
}

func TestSourceFileLines(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.js"), []byte("// helper\nfunction execute(input) {\n  return { out: input.in.length }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := flowBlock(t, dir, `block "x" {
  runtime     = "js"
  input "in" {}
  output "out" {}
  source_file = "x.js"
}
`)
	_, err := run(t, NewExecutor(), b, cty.NullVal(cty.DynamicPseudoType))
	wantError(t, err, `block "x" line 3: TypeError: Cannot read property 'length' of undefined`)
}

func TestNoExecute(t *testing.T) {
	b := jsBlock(t, `function exec(input) { return { out: 1 } }`)
	_, err := Compile(b.Def)
	wantError(t, err, `block "x" (flow.hcl:7): the source does not define a function execute`)
	if d := Check(b.Def); len(d) != 1 || d[0].Summary != "Missing execute function" {
		t.Fatalf("diagnostics %v", d)
	}

	b = jsBlock(t, `const execute = 42`)
	_, err = run(t, NewExecutor(), b, cty.NumberIntVal(1))
	wantError(t, err, `block "x" line 7: execute is not a function`)

	b = jsBlock(t, `const execute = (input) => ({ out: input.in })`)
	if got := mustRun(t, NewExecutor(), b, cty.True); !got.RawEquals(cty.True) {
		t.Fatalf("got %#v", got)
	}
}

func TestTooDeeplyNested(t *testing.T) {
	// goja's parser would need some 400 MiB of stack for this, and end
	// the process at a quarter of a million levels.
	src := "function execute() { return { out: " + strings.Repeat("[", 1e5) + strings.Repeat("]", 1e5) + " } }"
	_, err := Compile(&lang.BlockDef{Name: "x", Runtime: "js", Source: src, SourceLine: 3})
	wantError(t, err, `block "x"`, "brackets nest more than 1000 levels deep")
	// Nor may template substitutions, whatever their text.
	src = "function execute() { return { out: " + strings.Repeat("`${", 1100) + "1" + strings.Repeat("}`", 1100) + " } }"
	_, err = Compile(&lang.BlockDef{Name: "x", Runtime: "js", Source: src, SourceLine: 3})
	wantError(t, err, `block "x"`, "brackets nest more than 1000 levels deep")
	src = "function execute() {\n  const re = /'/\n  return { out: " + strings.Repeat("(", 1100) + "1" + strings.Repeat(")", 1100) + " } }"
	_, err = Compile(&lang.BlockDef{Name: "x", Runtime: "js", Source: src, SourceLine: 3})
	wantError(t, err, `block "x" line 5:`, "brackets nest more than 1000 levels deep")

	src = "function execute() { return { out: " + strings.Repeat("!", MaxSourceBytes) + "1 } }"
	_, err = Compile(&lang.BlockDef{Name: "x", Runtime: "js", Source: src})
	wantError(t, err, `block "x": the source is 513 KiB; a js block's source may be at most 512 KiB`)

	// Brackets in strings, template text, regular expressions and
	// comments do not count.
	text := strings.Repeat("(", 2000)
	src = "// " + text + "\nfunction execute() {\n  const s = '" + text + "', t = `" + text + "${s.length}" + text + "`\n" +
		"  const re = /" + strings.Repeat(`\(`, 2000) + "[/(]/ /* " + text + " */\n  return { out: [s, t, re.source].join('').length / 2 } }"
	if _, err := Compile(&lang.BlockDef{Name: "x", Runtime: "js", Source: src}); err != nil {
		t.Fatal(err)
	}
}

func TestMissingOutput(t *testing.T) {
	e := NewExecutor()
	b := jsBlock(t, `function execute() { return { other: 1, out: undefined } }`)
	_, err := run(t, e, b, cty.NumberIntVal(1))
	wantError(t, err, `block "x": the result of execute has no field "out"`)

	b = jsBlock(t, `function execute() { return [1, 2] }`)
	_, err = run(t, e, b, cty.NumberIntVal(1))
	wantError(t, err, `block "x": execute must return an object with the fields out; it returned [1,2]`)

	b = jsBlock(t, `function execute() {}`)
	_, err = run(t, e, b, cty.NumberIntVal(1))
	wantError(t, err, `block "x": execute returned undefined`)
}

func TestTimeout(t *testing.T) {
	for _, inline := range []bool{false, true} {
		t.Run(fmt.Sprintf("inline=%v", inline), func(t *testing.T) { testTimeout(t, inline) })
	}
}

// testTimeout: code that never returns is interrupted at its context's
// end when it runs on a runner goroutine, and at its deadline when it
// runs on the caller's (Executor.ExecuteUntil).
func testTimeout(t *testing.T, inline bool) {
	execute := func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
		if inline {
			d, _ := ctx.Deadline()
			return NewExecutor().ExecuteUntil(d, call, nil)
		}
		return NewExecutor().Execute(ctx, call)
	}
	for name, js := range map[string]string{
		"loop":      `function execute() { for (;;) {} }`,
		"catching":  `function execute() { for (;;) { try { for (;;) {} } catch (e) {} finally { continue } } }`,
		"top level": "let n = 0\nwhile (true) { n++ }\nfunction execute() {}",
		"async":     `async function execute() { await null; for (;;) {} }`,
		"log":       `function execute() { for (;;) { try { console.log({ toJSON() { for (;;) {} } }) } catch (e) {} } }`,
	} {
		t.Run(name, func(t *testing.T) {
			b := jsBlock(t, js)
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			_, err := execute(ctx, newCall(b, cty.NumberIntVal(1)))
			wantError(t, err, `block "x"`, "exceeded its timeout")
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%v is not a DeadlineExceeded", err)
			}
			if strings.Contains(err.Error(), "could not be interrupted") {
				t.Errorf("the call was abandoned: %v", err)
			}
		})
	}

	if inline {
		return // nothing cancels a call of ExecuteUntil
	}
	b := jsBlock(t, `function execute() { for (;;) {} }`)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := execute(ctx, newCall(b, cty.NumberIntVal(1)))
	wantError(t, err, `block "x" line 7: was cancelled`)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v is not a Canceled", err)
	}
}

func TestUninterruptibleBuiltin(t *testing.T) {
	if testing.Short() {
		t.Skip("leaves a goroutine busy for seconds")
	}
	// A backtracking regular expression runs inside a built-in, which goja
	// cannot interrupt: Execute gives up on it a second after the timeout.
	b := jsBlock(t, `function execute() { return { out: /^(a+)+\1$/.test('a'.repeat(25) + 'b') } }`)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	// The error says Execute gave up on the built-in; had it waited for the
	// expression to finish, the call would have returned its result.
	_, err := NewExecutor().Execute(ctx, newCall(b, cty.NumberIntVal(1)))
	wantError(t, err, `block "x": exceeded its timeout while inside a built-in function that could not be interrupted`)
}

func TestDeepRecursion(t *testing.T) {
	e := NewExecutor()
	for name, js := range map[string]string{
		"plain":    `function f(n) { return f(n + 1) + 1 }` + "\n" + `function execute() { return { out: f(0) } }`,
		"catching": `function f(n) { try { return f(n + 1) } catch (e) { return f(n + 1) } }` + "\n" + `function execute() { return { out: f(0) } }`,
		"getter":   `const o = { get x() { return this.x } }` + "\n" + `function execute() { return { out: o.x } }`,
	} {
		t.Run(name, func(t *testing.T) {
			b := jsBlock(t, js)
			_, err := run(t, e, b, cty.NumberIntVal(1))
			wantError(t, err, `block "x" line 7: RangeError: Maximum call stack size exceeded`)
		})
	}
}

func TestCallsAreIsolated(t *testing.T) {
	e := NewExecutor()
	b := jsBlock(t, `
let calls = 0
var seen = globalThis.seen || []
function execute(input) {
  calls++
  seen.push(input.in)
  const report = {
    calls,
    seen: seen.length,
    protoX: ({}).x,
    leak: typeof leak,
    map: typeof [].map,
    parse: JSON.parse("1"),
    console: typeof console.log,
    math: Math.max(1, 2),
  }
  Object.prototype.x = 1
  Array.prototype.map = null
  JSON.parse = () => "polluted"
  Math.max = () => -1
  globalThis.leak = 2
  globalThis.seen = seen
  console.log = null
  Object.freeze(Object.prototype)
  return { out: report }
}`)
	want := cty.ObjectVal(map[string]cty.Value{
		"calls": cty.NumberIntVal(1), "seen": cty.NumberIntVal(1), "leak": cty.StringVal("undefined"),
		"map": cty.StringVal("function"), "parse": cty.NumberIntVal(1), "console": cty.StringVal("function"),
		"math": cty.NumberIntVal(2),
	})
	for i := range 3 {
		got := mustRun(t, e, b, cty.NumberIntVal(int64(i)))
		if !got.RawEquals(want) {
			t.Fatalf("call %d: got %#v", i, got)
		}
	}
}

func TestNoHostGlobals(t *testing.T) {
	b := jsBlock(t, `
function execute() {
  const g = Function('return this')()
  const kinds = {}
  for (const name of ["require", "module", "exports", "process", "global", "setTimeout", "setInterval",
                      "setImmediate", "queueMicrotask", "fetch", "XMLHttpRequest", "WebSocket", "Deno", "Bun",
                      "print", "load", "__dirname"]) {
    kinds[name] = typeof g[name]
  }
  // goja's one non-standard global is an ordinary Error constructor.
  const goError = new GoError("m")
  const plainError = goError instanceof Error && goError.name === "GoError" && goError.message === "m" &&
    Object.getOwnPropertyNames(GoError).sort().join() === "length,name,prototype"
  return { out: { same: g === globalThis, kinds, plainError, names: Object.getOwnPropertyNames(g).sort() } }
}`)
	got := mustRun(t, NewExecutor(), b, cty.NumberIntVal(1))
	if !got.GetAttr("same").True() {
		t.Error("Function('return this')() is not globalThis")
	}
	if !got.GetAttr("plainError").True() {
		t.Error("GoError is not an ordinary Error constructor")
	}
	for name, kind := range got.GetAttr("kinds").AsValueMap() {
		if kind.AsString() != "undefined" {
			t.Errorf("typeof %s is %s", name, kind.AsString())
		}
	}
	ecma := map[string]bool{}
	for _, n := range strings.Fields(`AggregateError Array ArrayBuffer BigInt BigInt64Array BigUint64Array Boolean
		DataView Date Error EvalError Float32Array Float64Array Function Infinity Int16Array Int32Array Int8Array
		JSON Map Math NaN Number Object Promise Proxy RangeError ReferenceError Reflect RegExp Set String Symbol
		SyntaxError TypeError URIError Uint16Array Uint32Array Uint8Array Uint8ClampedArray WeakMap WeakSet
		decodeURI decodeURIComponent encodeURI encodeURIComponent escape eval globalThis isFinite isNaN
		parseFloat parseInt undefined unescape console execute GoError`) {
		ecma[n] = true
	}
	for _, n := range got.GetAttr("names").AsValueSlice() {
		if !ecma[n.AsString()] {
			t.Errorf("unexpected global %s", n.AsString())
		}
	}
}

func TestSourceMapsNotLoaded(t *testing.T) {
	// A sourceMappingURL comment must not make goja read the file it names
	// (here a FIFO, whose read would block forever; /dev/zero would fill
	// memory).
	fifo := filepath.Join(t.TempDir(), "map")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	url := "file://" + filepath.ToSlash(fifo)
	for name, js := range map[string]string{
		"source":   "function execute() { return { out: 1 } }\n//# sourceMappingURL=" + url,
		"eval":     `function execute(input) { return { out: eval("1\n//# sourceMappingURL=" + input.in) } }`,
		"Function": `function execute(input) { return { out: Function("return 1\n//# sourceMappingURL=" + input.in)() } }`,
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			res, err := NewExecutor().Execute(ctx, newCall(jsBlock(t, js), cty.StringVal(url)))
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Outputs["out"]; !got.RawEquals(cty.NumberIntVal(1)) {
				t.Fatalf("got %#v", got)
			}
		})
	}
}

func TestConsoleLog(t *testing.T) {
	b := jsBlock(t, `
function execute(input) {
  console.log("hello", 1, true, null, undefined, { a: [1, "two"] }, [3], new TypeError("bad"), () => 1)
  console.info("two\nlines")
  console.error("secret:", input.in)
  return { out: 1 }
}`)
	var l logLines
	call := newCall(b, cty.StringVal("hunter2"))
	call.Log = l.log
	call.Redact = func(s string) string { return strings.ReplaceAll(s, "hunter2", "***") }
	if _, err := NewExecutor().Execute(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	want := []string{`hello 1 true null undefined {"a":[1,"two"]} [3] TypeError: bad [Function]`, "two", "lines", "secret: ***"}
	if strings.Join(l.lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("log %q", l.lines)
	}

	// No log: console.log still works.
	call.Log = nil
	if _, err := NewExecutor().Execute(context.Background(), call); err != nil {
		t.Fatal(err)
	}
}

func TestConsoleLogCap(t *testing.T) {
	b := jsBlock(t, `
function execute(input) {
  for (let i = 0; i < 100000; i++) console.log("line " + i + " " + "é".repeat(50))
  console.log("x".repeat(1 << 20))
  return { out: 1 }
}`)
	var l logLines
	call := newCall(b, cty.NumberIntVal(1))
	call.Log = l.log
	start := time.Now()
	if _, err := NewExecutor().Execute(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	t.Logf("100,000 capped console.log calls in %s", time.Since(start))
	n := 0
	for _, line := range l.lines {
		n += len(line) + 1
	}
	if last := l.lines[len(l.lines)-1]; last != "[log truncated]" {
		t.Fatalf("last line %q", last)
	}
	if n > MaxLogBytes+len("[log truncated]")+1 || n < MaxLogBytes-200 {
		t.Fatalf("%d bytes logged", n)
	}
	for _, line := range l.lines {
		if !strings.HasPrefix(line, "line ") && line != "[log truncated]" || strings.ContainsRune(line, '\uFFFD') {
			t.Fatalf("bad line %q", line)
		}
	}

	// One huge message is cut too.
	b = jsBlock(t, `function execute() { console.log("y".repeat(1 << 20)); console.log("after"); return { out: 1 } }`)
	l = logLines{}
	call = newCall(b, cty.NumberIntVal(1))
	call.Log = l.log
	if _, err := NewExecutor().Execute(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if len(l.lines) != 2 || len(l.lines[0]) != MaxLogBytes || l.lines[1] != "[log truncated]" {
		t.Fatalf("%d lines, first %d bytes", len(l.lines), len(l.lines[0]))
	}
}

func TestJSONRoundTrip(t *testing.T) {
	b := flowBlock(t, "", `block "echo" {
  runtime = "js"
  input "doc" {
    type = object({ name = string, tags = list(string), scores = map(number), nested = list(object({ ok = bool, n = number })) })
  }
  input "nothing" {
    type    = string
    default = null
  }
  output "doc" {
    type = object({ name = string, tags = list(string), scores = map(number), nested = list(object({ ok = bool, n = number })) })
  }
  output "kinds" {
    type = list(string)
  }
  source = <<-JS
    function execute(input) {
      const d = input.doc
      return { doc: d, kinds: [typeof d.name, typeof d.scores.a, typeof d.nested[0].ok, String(input.nothing)] }
    }
  JS
}
`)
	doc := cty.ObjectVal(map[string]cty.Value{
		"name":   cty.StringVal("naïve \"quoted\" \u2028 😀 \x00"),
		"tags":   cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}),
		"scores": cty.MapVal(map[string]cty.Value{"a": cty.NumberFloatVal(1.5), "b": cty.NumberIntVal(-3e15)}),
		"nested": cty.ListVal([]cty.Value{
			cty.ObjectVal(map[string]cty.Value{"ok": cty.True, "n": cty.NumberIntVal(0)}),
			cty.ObjectVal(map[string]cty.Value{"ok": cty.False, "n": cty.NumberFloatVal(0.1)}),
		}),
	})
	call := &blocks.Call{Block: b, Outputs: b.Outputs, Inputs: map[string]cty.Value{
		"doc": doc, "nothing": cty.NullVal(cty.String),
	}}
	res, err := NewExecutor().Execute(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	got, err := convert.Convert(res.Outputs["doc"], doc.Type())
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equals(doc).True() {
		t.Errorf("doc: got %#v", got)
	}
	kinds := cty.TupleVal([]cty.Value{cty.StringVal("string"), cty.StringVal("number"), cty.StringVal("boolean"), cty.StringVal("null")})
	if got := res.Outputs["kinds"]; !got.RawEquals(kinds) {
		t.Errorf("kinds: got %#v", got)
	}
}

func TestConcurrentCalls(t *testing.T) {
	e := NewExecutor()
	b := jsBlock(t, `
let total = 0
async function execute(input) {
  for (let i = 1; i <= input.in; i++) total += await i
  Object.prototype.polluted = input.in
  console.log("total", total)
  return { out: total }
}`)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				n := int64(g*50 + i)
				call := newCall(b, cty.NumberIntVal(n))
				var l logLines
				call.Log = l.log
				res, err := e.Execute(context.Background(), call)
				if err != nil {
					errs <- err
					return
				}
				want := cty.NumberIntVal(n * (n + 1) / 2)
				if got := res.Outputs["out"]; !got.RawEquals(want) || len(l.lines) != 1 {
					errs <- fmt.Errorf("input %d: got %#v, log %q", n, got, l.lines)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCompiledOnce(t *testing.T) {
	e := NewExecutor()
	b1 := jsBlock(t, `function execute() { return { out: 1 } }`)
	b2 := jsBlock(t, `function execute() { return { out: 1 } }`)
	p1, err := e.Program(b1.Def)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := e.Program(b2.Def)
	if err != nil {
		t.Fatal(err)
	}
	if p1.prog != p2.prog {
		t.Error("the same source was compiled twice")
	}
}

// TestHostileInProcess runs the cases that cannot be contained in process
// in a child process, and checks that they do end it: they are why
// untrusted code must run in a worker process with memory limits.
func TestHostileInProcess(t *testing.T) {
	if js := os.Getenv("JSRUN_HOSTILE_CHILD"); js != "" {
		// Keep the child's allocations from touching the host.
		lim := &syscall.Rlimit{Cur: 4 << 30, Max: 4 << 30}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, lim); err != nil {
			t.Skip("cannot limit memory:", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, err := NewExecutor().Execute(ctx, newCall(jsBlock(t, js), cty.NumberIntVal(1)))
		fmt.Printf("contained: %v\n", err)
		return
	}
	if testing.Short() {
		t.Skip("runs child processes")
	}
	if raceEnabled {
		t.Skip("the race detector cannot run under the children's memory limit")
	}
	for _, js := range []string{
		// One allocation larger than memory.
		`function execute() { return { out: 'x'.repeat(2 ** 40).length } }`,
		`function execute() { return { out: new ArrayBuffer(2 ** 40).byteLength } }`,
		// Recursion in Go, past the goroutine stack's 1 GB.
		`function execute() { return { out: eval('('.repeat(1e6) + '1' + ')'.repeat(1e6)) } }`,
		`function execute() { let f = () => 1; for (let i = 0; i < 1e6; i++) f = f.bind(null); return { out: f() } }`,
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHostileInProcess$", "-test.v")
		cmd.Env = append(os.Environ(), "JSRUN_HOSTILE_CHILD="+js)
		out, err := cmd.CombinedOutput()
		cancel()
		switch {
		case err == nil && strings.Contains(string(out), "contained: "):
			t.Logf("%s: contained in process now: %s", js, firstLine(string(out), "contained: "))
		case err != nil && strings.Contains(string(out), "fatal error: "):
			t.Logf("%s: ends the process (%v: %s)", js, err, firstLine(string(out), "fatal error: "))
		default:
			t.Errorf("%s: %v\n%s", js, err, clip(string(out), 2000))
		}
	}
}

func firstLine(s, prefix string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

// TestProgramsBounded: the compiled sources kept are bounded.
func TestProgramsBounded(t *testing.T) {
	e := NewExecutor()
	e.programs.Resize(2)
	for i := range 4 {
		b := jsBlock(t, fmt.Sprintf(`function execute() { return { out: %d } }`, i))
		if got := mustRun(t, e, b, cty.NumberIntVal(1)); !got.RawEquals(cty.NumberIntVal(int64(i))) {
			t.Fatalf("call %d: %#v", i, got)
		}
	}
	if n := e.programs.Len(); n != 2 {
		t.Fatalf("%d programs kept", n)
	}
}

// TestInputsAsJSONParseMakesThem: inputs are plain objects and arrays with
// own properties (a key "__proto__" included), numbers as doubles.
func TestInputsAsJSONParseMakesThem(t *testing.T) {
	e := NewExecutor()
	b := jsBlock(t, `
function execute(input) {
  const v = input.in
  return { out: [
    Object.getPrototypeOf(v) === Object.prototype,
    Object.prototype.hasOwnProperty.call(v, "__proto__"),
    v.__proto__,
    Array.isArray(v.list),
    typeof v.big,
    v.big === 2 ** 60,
    v.nothing === null,
    Object.keys(v).join(","),
  ] }
}`)
	in := cty.ObjectVal(map[string]cty.Value{
		"__proto__": cty.StringVal("own"),
		"list":      cty.SetVal([]cty.Value{cty.NumberIntVal(1)}),
		"big":       cty.NumberIntVal(1 << 60),
		"nothing":   cty.NullVal(cty.String),
	})
	got, err := run(t, e, b, in)
	if err != nil {
		t.Fatal(err)
	}
	want := cty.TupleVal([]cty.Value{cty.True, cty.True, cty.StringVal("own"), cty.True, cty.StringVal("number"),
		cty.True, cty.True, cty.StringVal("__proto__,big,list,nothing")})
	if !got.RawEquals(want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
}

// TestResultsUseTheRuntimesOwnJSON: replacing JSON does not change how
// results and logged objects are serialised; toJSON methods are honoured.
func TestResultsUseTheRuntimesOwnJSON(t *testing.T) {
	e := NewExecutor()
	b := jsBlock(t, `
function execute() {
  JSON.stringify = () => '{"out":"replaced"}'
  JSON = null
  console.log({ a: [1, "two"], d: { toJSON() { return "D" } } })
  return { out: { when: { toJSON() { return "today" } }, s: "é\n", n: 0.5, f() {}, u: undefined } }
}`)
	var lines []string
	call := newCall(b, cty.NullVal(cty.DynamicPseudoType))
	call.Log = func(l string) { lines = append(lines, l) }
	res, err := e.Execute(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	want := cty.ObjectVal(map[string]cty.Value{"when": cty.StringVal("today"), "s": cty.StringVal("é\n"), "n": cty.NumberFloatVal(0.5)})
	if got := res.Outputs["out"]; !got.RawEquals(want) {
		t.Errorf("out %#v, want %#v", got, want)
	}
	if want := []string{`{"a":[1,"two"],"d":"D"}`}; fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("log %q, want %q", lines, want)
	}
	b = jsBlock(t, `function execute() { return "text" }`)
	_, err = run(t, e, b, cty.NumberIntVal(1))
	wantError(t, err, `execute must return an object with the fields out; it returned "text"`)
}

// TestNotANumber: NaN and the infinities, which JSON.stringify writes as
// null, fail the call with the output and the value named, wherever in
// the output they are; a null the code returns is left to the runtime.
func TestNotANumber(t *testing.T) {
	e := NewExecutor()
	for _, c := range []struct{ js, want string }{
		{`return { out: [].reduce((a, b) => a + b, 0) / 0 }`, `block "x": output "out" is NaN, which is not a number a flow can hold`},
		{`return { out: 1 / 0 }`, `output "out" is Infinity,`},
		{`return { out: -1 / 0 }`, `output "out" is -Infinity,`},
		{`return { out: new Number(NaN) }`, `output "out" is NaN,`},
		{`return { out: { rows: [1, { mean: 0 / 0 }] } }`, `output "out" holds NaN at .rows[1].mean, which is not a number a flow can hold`},
		{`return { out: { toJSON() { return [Infinity] } } }`, `output "out" holds Infinity at [0],`},
	} {
		b := jsBlock(t, `function execute(input) { `+c.js+` }`)
		_, err := run(t, e, b, cty.NumberIntVal(1))
		wantError(t, err, c.want)
	}
	for _, js := range []string{`return { out: null, other: NaN }`, `return { out: [null, "null", 1] }`, `return { out: { d: new Date(0), n: null } }`} {
		b := jsBlock(t, `function execute(input) { `+js+` }`)
		if _, err := run(t, e, b, cty.NumberIntVal(1)); err != nil {
			t.Errorf("%s: %v", js, err)
		}
	}
}
