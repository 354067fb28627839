package gorun

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

func TestTrivialExecute(t *testing.T) {
	def := parseDef(t, code(nil, `return map[string]any{"y": input["x"]}, nil`))
	if diags := Check(def); diags.HasErrors() {
		t.Fatal(diags)
	}
	e := NewExecutor()
	defer e.Close()
	got, err := run(t, e, def, cty.StringVal("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if !got.RawEquals(cty.StringVal("hello")) {
		t.Fatalf("y = %#v", got)
	}
}

func TestInputsAreJSONShaped(t *testing.T) {
	def := parseDef(t, code([]string{"fmt"}, `
	m := input["x"].(map[string]any)
	return map[string]any{"y": fmt.Sprintf("%T %T %T %T %v", m["n"], m["s"], m["l"], m["o"], m["z"])}, nil`))
	e := NewExecutor()
	defer e.Close()
	x := cty.ObjectVal(map[string]cty.Value{
		"n": cty.NumberIntVal(3),
		"s": cty.StringVal("a"),
		"l": cty.ListVal([]cty.Value{cty.True}),
		"o": cty.ObjectVal(map[string]cty.Value{"k": cty.StringVal("v")}),
		"z": cty.NullVal(cty.String),
	})
	got, err := run(t, e, def, x)
	if err != nil {
		t.Fatal(err)
	}
	if want := "float64 string []interface {} map[string]interface {} <nil>"; got.AsString() != want {
		t.Fatalf("y = %q, want %q", got.AsString(), want)
	}
}

func TestStandardPackages(t *testing.T) {
	def := parseDef(t, `package block

import (
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

var words = regexp.MustCompile(`+"`[a-z]+`"+`)

type count struct {
	Word string `+"`json:\"word\"`"+`
	N    int    `+"`json:\"n\"`"+`
}

func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
	seen := map[string]int{}
	for _, w := range words.FindAllString(strings.ToLower(input["x"].(string)), -1) {
		seen[w]++
	}
	var counts []count
	for w, n := range seen {
		counts = append(counts, count{w, n})
	}
	sort.Slice(counts, func(i, j int) bool { return counts[i].Word < counts[j].Word })
	b, err := json.Marshal(counts)
	if err != nil {
		return nil, err
	}
	var back []any
	if err := json.Unmarshal(b, &back); err != nil {
		return nil, err
	}
	return map[string]any{"y": map[string]any{"json": string(b), "back": back, "top": counts[0]}}, nil
}
`)
	if diags := Check(def); diags.HasErrors() {
		t.Fatal(diags)
	}
	e := NewExecutor()
	defer e.Close()
	got, err := run(t, e, def, cty.StringVal("The cat, the DOG; the end."))
	if err != nil {
		t.Fatal(err)
	}
	if s := got.GetAttr("json").AsString(); s != `[{"word":"cat","n":1},{"word":"dog","n":1},{"word":"end","n":1},{"word":"the","n":3}]` {
		t.Errorf("json = %s", s)
	}
	if n := got.GetAttr("back").Index(cty.NumberIntVal(3)).GetAttr("n"); !n.RawEquals(cty.NumberIntVal(3)) {
		t.Errorf("back[3].n = %#v", n)
	}
	// An interpreted struct type is encoded with its json tags.
	if w := got.GetAttr("top").GetAttr("word"); !w.RawEquals(cty.StringVal("cat")) {
		t.Errorf("top.word = %#v", w)
	}
}

func TestErrorReturned(t *testing.T) {
	def := parseDef(t, code([]string{"errors"}, `return nil, errors.New("the input is empty")`))
	e := NewExecutor()
	defer e.Close()
	_, err := run(t, e, def, cty.NilVal)
	want := fmt.Sprintf(`block "demo" returned an error: the input is empty (Execute is at %s:%d)`, def.SourceRange.Filename, flowOffset+execLine)
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	var ge *Error
	if !errors.As(err, &ge) || ge.Range.Start.Line != flowOffset+execLine {
		t.Fatalf("range = %+v", ge)
	}
}

func TestPanicRecovered(t *testing.T) {
	def := parseDef(t, code(nil, `if input["x"] == "nil map" {
		var m map[string]any
		m["a"] = 1
	}
	if input["x"] == "index" {
		s := []int{1}
		return map[string]any{"y": s[len(s)+2]}, nil
	}
	if input["x"] == "value" {
		panic("boom")
	}
	return map[string]any{"y": "fine"}, nil`))
	e := NewExecutor()
	defer e.Close()
	file := def.SourceRange.Filename
	for _, c := range []struct {
		x    string
		line int
		msg  string
	}{
		{"nil map", bodyLine + 2, "assignment to entry in nil map"},
		{"index", bodyLine + 6, "index out of range"},
		{"value", bodyLine + 9, "boom"},
	} {
		_, err := run(t, e, def, cty.StringVal(c.x))
		want := fmt.Sprintf(`block "demo" panicked at %s:%d: `, file, flowOffset+c.line)
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v\nwant %s…%s", c.x, err, want, c.msg)
		}
		var ge *Error
		if errors.As(err, &ge) && ge.Range.Start.Line != flowOffset+c.line {
			t.Errorf("%s: range line %d", c.x, ge.Range.Start.Line)
		}
		// The interpreter that panicked is dropped; the next call works.
		if got, err := run(t, e, def, cty.StringVal("ok")); err != nil || got.AsString() != "fine" {
			t.Errorf("after %s: %v, %v", c.x, got, err)
		}
	}
	if n := e.compiles.Load(); n != 4 {
		t.Errorf("compiles = %d, want 4 (one, and one after each panic)", n)
	}
}

func TestForbiddenImports(t *testing.T) {
	for _, imp := range []string{"os", "os/exec", "net", "syscall", "unsafe", "reflect", "runtime", "runtime/debug", "plugin", "io/ioutil", "net/http", "text/template/parse", "iter", "crypto/rand", "mime/multipart", "fmt/fmt", "github.com/traefik/yaegi/stdlib", "flowctl.invalid/gorun", "./x"} {
		def := parseDef(t, code([]string{"strings", imp}, `return nil, nil`))
		diags := Check(def)
		if len(diags) != 1 {
			t.Errorf("%s: %d diagnostics: %v", imp, len(diags), diags)
			continue
		}
		d := diags[0]
		// The import is on line 6 of the code.
		if d.Summary != "Forbidden import" || d.Subject.Filename != def.SourceRange.Filename || d.Subject.Start.Line != flowOffset+6 {
			t.Errorf("%s: %s at %s", imp, d.Summary, d.Subject)
		}
		if !strings.Contains(d.Detail, fmt.Sprintf("%q", imp)) {
			t.Errorf("%s: detail %q", imp, d.Detail)
		}
		// The column and byte offset point at the import path in the file.
		if d.Subject.Start.Column != 6 {
			t.Errorf("%s: column %d", imp, d.Subject.Start.Column)
		}
		// The executor refuses it too, without compiling.
		e := NewExecutor()
		_, err := run(t, e, def, cty.NilVal)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("cannot run: %s:%d: The code imports %q", def.SourceRange.Filename, flowOffset+6, imp)) {
			t.Errorf("%s: executor: %v", imp, err)
		}
		if e.compiles.Load() != 0 {
			t.Errorf("%s: compiled", imp)
		}
	}
}

func TestDiagnosticSnippet(t *testing.T) {
	def := parseDef(t, code([]string{"os"}, `return nil, nil`))
	d := Check(def)[0]
	b, err := readBytes(def.SourceRange.Filename)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b[d.Subject.Start.Byte:d.Subject.End.Byte]); got != `"os"` {
		t.Fatalf("subject text %q", got)
	}
}

func TestCompileErrorLine(t *testing.T) {
	def := parseDef(t, code([]string{"strings"}, `s := strings.ToUpper("a")
	return map[string]any{"y": s + undefinedName}, nil`))
	diags := Check(def)
	if len(diags) != 1 || diags[0].Subject.Start.Line != flowOffset+bodyLine+1 || !strings.Contains(diags[0].Detail, "undefined: undefinedName") {
		t.Fatalf("diags = %v", diags)
	}
	e := NewExecutor()
	defer e.Close()
	for i := 0; i < 2; i++ {
		_, err := run(t, e, def, cty.NilVal)
		want := fmt.Sprintf(`block "demo" cannot run: %s:%d: The code does not compile: undefined: undefinedName.`, def.SourceRange.Filename, flowOffset+bodyLine+1)
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v\nwant %s", err, want)
		}
	}
	if n := e.compiles.Load(); n != 1 {
		t.Errorf("compiles = %d: a compile error is kept", n)
	}
}

func TestSyntaxAndShapeErrors(t *testing.T) {
	for _, c := range []struct {
		name, src string
		line      int
		detail    string
	}{
		{"syntax", "package block\n\nfunc Execute(ctx context.Context, input map[string]any) (map[string]any, error) {\n\treturn nil, nil +\n}\n", 5, "expected operand"},
		{"package", "package main\n\nimport \"context\"\n\nfunc Execute(ctx context.Context, input map[string]any) (map[string]any, error) {\n\treturn nil, nil\n}\n", 1, "package block"},
		{"no execute", "package block\n\nfunc Run() {}\n", 1, "no func Execute"},
		{"signature", "package block\n\nimport \"context\"\n\nfunc Execute(ctx context.Context, input map[string]string) (map[string]any, error) {\n\treturn nil, nil\n}\n", 5, "Execute is func(context.Context, map[string]string) (map[string]any, error)"},
		{"go statement", code(nil, "go func() {}()\n\treturn nil, nil"), bodyLine, "cannot start goroutines"},
		{"println", code([]string{"fmt"}, `fmt.Println("hi")
	return nil, nil`), bodyLine, `fmt.Println is not available in go blocks: they cannot print; return values or use an error.`},
		{"sleep", code([]string{"time"}, `time.Sleep(time.Second)
	return nil, nil`), bodyLine, `time.Sleep is not available in go blocks: they cannot sleep or start timers`},
		{"no such symbol", code([]string{"strings"}, `_ = strings.Shout("a")
	return nil, nil`), bodyLine, `The code does not compile: package strings "strings" has no symbol Shout.`},
		{"min", code(nil, `return map[string]any{"y": min(1, 2)}, nil`), bodyLine, "yaegi"},
	} {
		def := parseDef(t, c.src)
		diags := Check(def)
		if len(diags) == 0 {
			t.Errorf("%s: no diagnostics", c.name)
			continue
		}
		d := diags[0]
		if d.Subject.Start.Line != flowOffset+c.line || !strings.Contains(d.Detail, c.detail) || !strings.HasPrefix(d.Detail, `Block "demo": `) {
			t.Errorf("%s: %s: %s at line %d, want line %d and %q", c.name, d.Summary, d.Detail, d.Subject.Start.Line, flowOffset+c.line, c.detail)
		}
	}
}

func TestPrintGoesToLog(t *testing.T) {
	def := parseDef(t, code(nil, `println("one", 2)
	print("thr")
	print("ee\n")
	print("partial")
	return map[string]any{"y": true}, nil`))
	e := NewExecutor()
	defer e.Close()
	var lines []string
	call := newCall(t, def, cty.NilVal)
	call.Log = func(l string) { lines = append(lines, l) }
	if _, err := e.Execute(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(lines, "|"); got != "one 2|three|partial" {
		t.Fatalf("log = %q", got)
	}
}

func TestTimeoutStopsLoop(t *testing.T) {
	def := parseDef(t, code(nil, `if input["x"] == "spin" {
		n := 0
		for {
			n++
		}
	}
	if input["x"] == "wait" {
		ch := make(chan int)
		<-ch
	}
	return map[string]any{"y": "done"}, nil`))
	e := NewExecutor()
	defer e.Close()
	if _, err := run(t, e, def, cty.StringVal("warm")); err != nil {
		t.Fatal(err)
	}
	for i, x := range []string{"spin", "wait"} {
		timeout := 300 * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		_, err := e.Execute(ctx, newCall(t, def, cty.StringVal(x)))
		cancel()
		want := fmt.Sprintf(`block "demo" exceeded its timeout; its code was stopped (Execute is at %s:%d)`, def.SourceRange.Filename, flowOffset+execLine)
		if err == nil || err.Error() != want || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v\nwant %s", x, err, want)
		}
		// The stopped interpreter is not reused: the next call compiles a
		// new one, and works.
		got, err := run(t, e, def, cty.StringVal("after"))
		if err != nil || got.AsString() != "done" {
			t.Errorf("%s: next call: %v, %v", x, got, err)
		}
		if n := e.compiles.Load(); n != int64(i+2) {
			t.Errorf("%s: compiles = %d, want %d", x, n, i+2)
		}
	}
}

func TestCancelledContext(t *testing.T) {
	def := parseDef(t, code(nil, `<-ctx.Done()
	return nil, ctx.Err()`))
	e := NewExecutor()
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	_, err := e.Execute(ctx, newCall(t, def, cty.NilVal))
	if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "was cancelled") {
		t.Fatalf("err = %v", err)
	}
}

func TestInitUnderContext(t *testing.T) {
	def := parseDef(t, `package block

import "context"

var ready = spin()

func spin() bool {
	for {
	}
}

func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
	return map[string]any{"y": ready}, nil
}
`)
	e := NewExecutor()
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := e.Execute(ctx, newCall(t, def, cty.NilVal))
	if err == nil || !strings.Contains(err.Error(), "exceeded its timeout") {
		t.Fatalf("err = %v", err)
	}
}

func TestOutputMismatch(t *testing.T) {
	def := parseDef(t, code([]string{"math"}, `x := input["x"].(string)
	switch x {
	case "missing":
		return map[string]any{"z": 1}, nil
	case "nan":
		return map[string]any{"y": math.NaN()}, nil
	case "inf":
		return map[string]any{"y": math.Inf(-1)}, nil
	case "nil":
		return nil, nil
	}
	return map[string]any{"y": "text"}, nil`))
	def.Outputs[0].Type = lang.TypeSpec{Type: cty.Number}
	e := NewExecutor()
	defer e.Close()
	where := fmt.Sprintf("(Execute is at %s:%d)", def.SourceRange.Filename, flowOffset+execLine)
	for x, want := range map[string]string{
		"missing": `block "demo" returned no output "y" ` + where,
		"nan":     `block "demo" output "y" is NaN, which is not a number a flow can hold ` + where,
		"inf":     `block "demo" output "y" is -Infinity, which is not a number a flow can hold ` + where,
		"nil":     `block "demo" returned a nil map and no error ` + where,
		"text":    `block "demo" returned output "y", which must be a number: a number is required ` + where,
	} {
		_, err := run(t, e, def, cty.StringVal(x))
		if err == nil || err.Error() != want {
			t.Errorf("%s: err = %v\nwant %s", x, err, want)
		}
	}
}

// TestNotANumberInside: a NaN or an infinity inside an output is named
// too, where encoding/json cannot say where it is.
func TestNotANumberInside(t *testing.T) {
	def := parseDef(t, code([]string{"math"}, `return map[string]any{"y": []any{1.0, map[string]any{"m": math.Inf(1)}}}, nil`))
	def.Outputs[0].Type = lang.TypeSpec{Type: cty.DynamicPseudoType}
	e := NewExecutor()
	defer e.Close()
	_, err := run(t, e, def, cty.StringVal("x"))
	if want := `block "demo" output "y" holds Infinity, which is not a number a flow can hold`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

func TestConcurrentCalls(t *testing.T) {
	def := parseDef(t, code([]string{"strings", "strconv"}, `n := int(input["x"].(float64))
	return map[string]any{"y": strings.Repeat("a", n%5) + strconv.Itoa(n)}, nil`))
	e := NewExecutor()
	defer e.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8*20)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				n := g*100 + i
				got, err := run(t, e, def, cty.NumberIntVal(int64(n)))
				if err != nil {
					errs <- err
					return
				}
				if want := strings.Repeat("a", n%5) + fmt.Sprint(n); got.AsString() != want {
					errs <- fmt.Errorf("got %q, want %q", got.AsString(), want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := e.compiles.Load(); n < 1 || n > 8 {
		t.Errorf("compiles = %d, want 1 to 8 (one interpreter per concurrent call at most)", n)
	}
}

func TestCompiledOnce(t *testing.T) {
	def := parseDef(t, code(nil, `return map[string]any{"y": input["x"]}, nil`))
	e := NewExecutor()
	defer e.Close()
	for i := 0; i < 20; i++ {
		if _, err := run(t, e, def, cty.NumberIntVal(int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	// Another block with the same code shares the compiled code, but its
	// errors name it and its own lines.
	def2 := parseDef(t, code(nil, `return map[string]any{"y": input["x"]}, nil`))
	def2.Name = "other"
	if _, err := run(t, e, def2, cty.True); err != nil {
		t.Fatal(err)
	}
	if n := e.compiles.Load(); n != 1 {
		t.Fatalf("compiles = %d, want 1", n)
	}
}

func TestGlobalStateKeptBetweenCalls(t *testing.T) {
	// One interpreter serves successive calls: package variables persist,
	// as in a long-running Go program.
	def := parseDef(t, `package block

import "context"

var calls int

func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
	calls++
	return map[string]any{"y": calls}, nil
}
`)
	e := NewExecutor()
	defer e.Close()
	for i := 1; i <= 3; i++ {
		got, err := run(t, e, def, cty.NilVal)
		if err != nil || !got.RawEquals(cty.NumberIntVal(int64(i))) {
			t.Fatalf("call %d: %#v, %v", i, got, err)
		}
	}
}

func TestProgramsBounded(t *testing.T) {
	e := NewExecutor()
	e.programs.Resize(2)
	defer e.Close()
	for i := 0; i < 4; i++ {
		def := parseDef(t, code(nil, fmt.Sprintf(`return map[string]any{"y": %d}, nil`, i)))
		if _, err := run(t, e, def, cty.NilVal); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.programs.Len(); n != 2 {
		t.Fatalf("%d programs kept", n)
	}
}

func TestSourceFileLines(t *testing.T) {
	// With source_file, the code is the file: lines and columns map as is.
	src := code([]string{"os"}, `return nil, nil`)
	path := t.TempDir() + "/block.go"
	def := &lang.BlockDef{Name: "f", Runtime: lang.RuntimeGo, Source: src, SourceFile: "block.go", SourceLine: 1}
	def.SourceRange.Filename = path
	d := Check(def)
	if len(d) != 1 || d[0].Subject.Filename != path || d[0].Subject.Start.Line != 5 || d[0].Subject.Start.Column != 2 {
		t.Fatalf("diags = %v (%+v)", d, d[0].Subject)
	}
	if got := src[d[0].Subject.Start.Byte:d[0].Subject.End.Byte]; got != `"os"` {
		t.Fatalf("subject %q", got)
	}
}

func TestRecursionBounded(t *testing.T) {
	def := parseDef(t, `package block

import "context"

type node struct{ kids []*node }

func (n *node) depth() int {
	d := 0
	for _, k := range n.kids {
		if kd := k.depth(); kd > d {
			d = kd
		}
	}
	return d + 1
}

func even(n int) bool {
	if n == 0 {
		return true
	}
	return odd(n - 1)
}

func odd(n int) bool { return n != 0 && even(n-1) }

func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
	n := int(input["x"].(float64))
	root := &node{}
	for cur, i := root, 0; i < 500; i++ {
		k := &node{}
		cur.kids = append(cur.kids, k)
		cur = k
	}
	var count func(int) int
	count = func(i int) int {
		if i == 0 {
			return 0
		}
		return count(i-1) + 1
	}
	return map[string]any{"y": []any{root.depth(), even(n), count(n)}}, nil
}
`)
	e := NewExecutor()
	defer e.Close()
	got, err := run(t, e, def, cty.NumberIntVal(4000))
	if err != nil || !got.RawEquals(cty.TupleVal([]cty.Value{cty.NumberIntVal(501), cty.True, cty.NumberIntVal(4000)})) {
		t.Fatalf("%#v, %v", got, err)
	}
	// A million calls deep would exhaust the process's stack.
	_, err = run(t, e, def, cty.NumberIntVal(1e6))
	// even or odd stops at its entry; the line is that of the call.
	want1 := fmt.Sprintf(`block "demo" panicked at %s:%d: recursion deeper than 5000 calls`, def.SourceRange.Filename, flowOffset+21)
	want2 := fmt.Sprintf(`block "demo" panicked at %s:%d: recursion deeper than 5000 calls`, def.SourceRange.Filename, flowOffset+24)
	if err == nil || !strings.HasPrefix(err.Error(), want1) && !strings.HasPrefix(err.Error(), want2) {
		t.Fatalf("err = %v\nwant %s", err, want1)
	}
}

func TestInstrumentKeepsLinesAndColumns(t *testing.T) {
	src := "package block\n\nfunc f(n int) int { if n > 0 { return f(n-1) }; return 0 }\n"
	in, err := instrument(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(in.code, "\n")
	if !strings.HasPrefix(lines[2], "func f(n int) int {"+depthGuard+" FlowctlLine_ = 3; if n > 0 { FlowctlLine_ = 3; return f(n-1) }; FlowctlLine_ = 3; return 0 }") {
		t.Fatalf("line 3: %s", lines[2])
	}
	// Columns of the instrumented line map back.
	orig := strings.Index(src, "return 0") + 1 - strings.Index(src, "func f")
	inst := strings.Index(lines[2], "return 0") + 1
	if got := in.column(3, inst); got != orig {
		t.Fatalf("column %d -> %d, want %d", inst, got, orig)
	}
}

func TestContextCarriesNoValues(t *testing.T) {
	def := parseDef(t, code(nil, `_, hasDeadline := ctx.Deadline()
	return map[string]any{"y": []any{ctx.Value("secret"), hasDeadline}}, nil`))
	e := NewExecutor()
	defer e.Close()
	ctx := context.WithValue(context.Background(), "secret", "s3cr3t") // a string key, as careless code would use
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	res, err := e.Execute(ctx, newCall(t, def, cty.NilVal))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Outputs["y"]; !got.RawEquals(cty.TupleVal([]cty.Value{cty.NullVal(cty.DynamicPseudoType), cty.True})) {
		t.Fatalf("y = %#v", got)
	}
}

func TestRemovedSymbols(t *testing.T) {
	for _, use := range []string{
		"fmt.Print", "fmt.Printf", "fmt.Println", "fmt.Scan", "fmt.Scanln", "fmt.Scanf", "fmt.Fscan",
		"time.Sleep", "time.After", "time.AfterFunc", "time.NewTimer", "time.NewTicker", "time.Tick",
		"context.AfterFunc",
	} {
		pkg := strings.Split(use, ".")[0]
		imports := []string{pkg}
		if pkg == "context" {
			imports = nil
		}
		def := parseDef(t, code(imports, "_ = "+use+"\n\treturn nil, nil"))
		diags := Check(def)
		// Found before compiling, at the selector: "_ = " is 4 columns.
		if len(diags) != 1 || diags[0].Subject.Start.Line != flowOffset+bodyLine || diags[0].Summary != "Function not available in go blocks" ||
			!strings.Contains(diags[0].Detail, use+" is not available in go blocks: they cannot ") ||
			diags[0].Subject.End.Column-diags[0].Subject.Start.Column != len(use) {
			t.Errorf("%s: %v", use, diags)
		}
	}
	// What stays of fmt and time works.
	def := parseDef(t, code([]string{"fmt", "time"}, `var b strings.Builder
	fmt.Fprintf(&b, "%d-%s", 7, time.Duration(90)*time.Second)
	var n int
	fmt.Sscanf("42", "%d", &n)
	return map[string]any{"y": fmt.Sprint(b.String(), " ", n)}, nil`))
	def.Source = strings.Replace(def.Source, "\"time\"\n", "\"time\"\n\t\"strings\"\n", 1)
	if diags := Check(def); diags.HasErrors() {
		t.Fatal(diags)
	}
	e := NewExecutor()
	defer e.Close()
	got, err := run(t, e, def, cty.NilVal)
	if err != nil || got.AsString() != "7-1m30s 42" {
		t.Fatalf("%#v, %v", got, err)
	}
}

func TestCheckRunsNothing(t *testing.T) {
	def := parseDef(t, `package block

import "context"

var x = spin()

func spin() int {
	for {
	}
}

func init() {
	for {
	}
}

func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
	return nil, nil
}
`)
	done := make(chan struct{})
	go func() {
		if diags := Check(def); diags.HasErrors() {
			t.Error(diags)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Check ran the code")
	}
}

func TestPackageVariablesCannotBeChanged(t *testing.T) {
	for _, body := range []string{
		"base64.StdEncoding = base64.URLEncoding",
		"*base64.StdEncoding = *base64.URLEncoding",
		"unicode.Latin.R16[0].Lo = 1",
		"p := &base64.StdEncoding\n_ = p",
	} {
		src := code([]string{"encoding/base64", "unicode"}, "_ = unicode.Latin\n"+body+"\nreturn map[string]any{}, nil")
		an := analyze(src, nil)
		p := an.problem()
		if p == nil || p.summary != "Change to a package variable" {
			t.Errorf("%q: problem %+v", body, p)
		}
	}
	// A local variable that shadows a package's name is the code's own.
	src := code([]string{"net/url"}, "url, _ := url.Parse(\"http://x\")\nurl.Path = \"/y\"\nreturn map[string]any{\"out\": url.String()}, nil")
	if p := analyze(src, nil).problem(); p != nil {
		t.Errorf("shadowed package name: %+v", p)
	}
}

func TestPackageVariablesAreCopiedPerInterpreter(t *testing.T) {
	e := NewExecutor()
	// Through an alias, which Check cannot see: the change stays in the
	// block's own interpreter.
	evil := parseDef(t, code([]string{"encoding/base64", "unicode"},
		"p := base64.StdEncoding\n*p = *base64.URLEncoding\nl := unicode.Latin\nl.R16[0].Lo = 7\nreturn map[string]any{\"y\": map[string]any{\"out\": p.EncodeToString([]byte{0xfb, 0xff})}}, nil"))
	v, err := run(t, e, evil, cty.NullVal(cty.DynamicPseudoType))
	if err != nil {
		t.Fatal(err)
	}
	if got := v.GetAttr("out").AsString(); got != "-_8=" {
		t.Fatalf("the block's own encoding gave %q", got)
	}
	plain := parseDef(t, code([]string{"encoding/base64", "unicode"},
		"return map[string]any{\"y\": map[string]any{\"out\": base64.StdEncoding.EncodeToString([]byte{0xfb, 0xff}), \"latin\": unicode.Is(unicode.Latin, 'a')}}, nil"))
	v, err = run(t, e, plain, cty.NullVal(cty.DynamicPseudoType))
	if err != nil {
		t.Fatal(err)
	}
	if got := v.GetAttr("out").AsString(); got != "+/8=" {
		t.Errorf("another block's base64.StdEncoding gave %q", got)
	}
	if v.GetAttr("latin").False() {
		t.Error("another block's unicode.Latin was changed")
	}
	if base64.StdEncoding.EncodeToString([]byte{0xfb, 0xff}) != "+/8=" || unicode.Latin.R16[0].Lo == 7 {
		t.Error("flowctl's own variables were changed")
	}
}

func TestContextsOfTheBlocksOwnTypeAreRefused(t *testing.T) {
	e := NewExecutor()
	src := "package block\n\nimport (\n\t\"context\"\n\t\"time\"\n)\n\n" +
		"type own struct{ context.Context }\n\n" +
		"func (own) Deadline() (time.Time, bool) { return time.Time{}, false }\n\n" +
		"func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {\n" +
		"\tc, cancel := context.WithTimeout(ctx, time.Second)\n\tdefer cancel()\n" +
		"\tv := context.WithValue(c, \"k\", 1)\n" +
		"\t_, cancel2 := context.WithCancel(own{v})\n\tdefer cancel2()\n" +
		"\treturn map[string]any{\"y\": 1}, nil\n}\n"
	_, err := run(t, e, parseDef(t, src), cty.NilVal)
	if err == nil || !strings.Contains(err.Error(), "must derive from the ctx Execute is given") {
		t.Fatalf("error %v", err)
	}
	// Deriving from the call's ctx works.
	ok := parseDef(t, code([]string{"time"}, "c, cancel := context.WithTimeout(ctx, time.Second)\ndefer cancel()\nreturn map[string]any{\"y\": context.WithValue(c, \"k\", 2).Value(\"k\")}, nil"))
	v, err := run(t, e, ok, cty.NilVal)
	if err != nil || !v.RawEquals(cty.NumberIntVal(2)) {
		t.Fatalf("%#v, %v", v, err)
	}
}

// TestWritersOfTheBlocksOwn: a value of the block's own type with a Write
// method goes to compiled code as an io.Writer (fmt.Fprintf,
// json.NewEncoder), though io itself cannot be imported; a panic in its
// method is placed at the method's line.
func TestWritersOfTheBlocksOwn(t *testing.T) {
	def := parseDef(t, `package block

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

type upper struct{ b bytes.Buffer }

func (u *upper) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("boom")) {
		panic("a writer that panics")
	}
	return u.b.Write(bytes.ToUpper(p))
}

func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
	w := &upper{}
	fmt.Fprintf(w, "hello %d;", 42)
	json.NewEncoder(w).Encode(map[string]any{"k": input["x"]})
	return map[string]any{"y": w.b.String()}, nil
}
`)
	e := NewExecutor()
	defer e.Close()
	got, err := run(t, e, def, cty.StringVal("v"))
	if err != nil || got.AsString() != "HELLO 42;{\"K\":\"V\"}\n" {
		t.Fatalf("got %#v, %v", got, err)
	}
	_, err = run(t, e, def, cty.StringVal("boom"))
	want := fmt.Sprintf(`block "demo" panicked at %s:%d: a writer that panics`, def.SourceRange.Filename, flowOffset+14)
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	// io stays out of reach.
	if p := Check(parseDef(t, code([]string{"io"}, `return nil, nil`))); len(p) == 0 {
		t.Error("a block could import io")
	}
}

// TestInitPanicLine: a panic in a package-level initializer is placed at
// its line.
func TestInitPanicLine(t *testing.T) {
	def := parseDef(t, `package block

import "context"

var table = []int{1, 2, 3}
var fourth = at(3)

func at(i int) int { return table[i] }

func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
	return map[string]any{"y": fourth}, nil
}
`)
	e := NewExecutor()
	defer e.Close()
	_, err := run(t, e, def, cty.NilVal)
	want := fmt.Sprintf(`block "demo" panicked while its package was initialized at %s:%d`, def.SourceRange.Filename, flowOffset+8)
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "index out of range") {
		t.Errorf("err = %v\nwant %s…", err, want)
	}
}
