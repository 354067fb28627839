package blocktest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

const wordCount = `
block "word_count" {
  runtime = "go"
  source  = "package block"
  input "text" {
    type = string
  }
  input "min" {
    type    = number
    default = 1
  }
  input "opts" {
    type    = object({ lower = optional(bool, true) })
    default = {}
  }
  output "count" {
    type = number
  }
  output "longest" {
    type = string
  }
  example {
    input  = { text = "a bb ccc", opts = {} }
    output = { count = 3 }
  }
}
`

func TestPassingExample(t *testing.T) {
	b := parseBlock(t, wordCount)
	var got *blocks.Call
	ex := fake(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
		got = call
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the call's context has no deadline")
		}
		// Numbers come back as JSON gives them; the example's 3 is equal.
		return &blocks.Result{Outputs: map[string]cty.Value{
			"count": cty.NumberFloatVal(3.0), "longest": cty.StringVal("ccc"), "extra": cty.True,
		}}, nil
	})
	r := runOne(t, b, ex, Options{Dir: "flows"})
	wantPassed(t, r)
	if r.Block != "word_count" || r.Example != 1 || r.Range.Filename != "test.block.hcl" || r.Range.Start.Line != 22 {
		t.Errorf("result names %s example %d at %s", r.Block, r.Example, lang.RangeString(r.Range))
	}
	// The inputs are converted, with the defaults of absent inputs and
	// of optional attributes applied.
	want := map[string]cty.Value{
		"text": cty.StringVal("a bb ccc"),
		"min":  cty.NumberIntVal(1),
		"opts": cty.ObjectVal(map[string]cty.Value{"lower": cty.True}),
	}
	if got == nil {
		t.Fatal("the executor was not called")
	}
	for k, v := range want {
		if !got.Inputs[k].RawEquals(v) {
			t.Errorf("input %s = %#v, want %#v", k, got.Inputs[k], v)
		}
	}
	if len(got.Inputs) != len(want) || got.Dir != "flows" || got.Block != b || len(got.Outputs) != 2 || got.Step != "word_count example 1" {
		t.Errorf("call = %+v", got)
	}
	// Expected holds the given fields only; Actual every output.
	if !r.Expected.RawEquals(cty.ObjectVal(map[string]cty.Value{"count": cty.NumberIntVal(3)})) {
		t.Errorf("Expected = %#v", r.Expected)
	}
	if !r.Actual.RawEquals(cty.ObjectVal(map[string]cty.Value{"count": cty.NumberFloatVal(3), "longest": cty.StringVal("ccc")})) {
		t.Errorf("Actual = %#v", r.Actual)
	}
	if r.Duration <= 0 {
		t.Errorf("Duration = %s", r.Duration)
	}
}

const shapes = `
block "shapes" {
  runtime = "js"
  source  = "function execute() {}"
  output "count" {
    type = number
  }
  output "words" {
    type = list(string)
  }
  output "meta" {
    type = object({ lang = string, tags = map(number), ok = bool })
  }
  output "rest" {
    type = any
  }
  output "same" {
    type = string
  }
  example {
    input = {}
    output = {
      count = 2
      words = ["a", "b", "c"]
      meta  = { lang = "en", tags = { x = 1, "a b" = 2 }, ok = true }
      rest  = { list = [1, 2], text = "x\ny" }
      same  = "s"
    }
  }
}
`

func TestMismatchDiff(t *testing.T) {
	b := parseBlock(t, shapes)
	r := runOne(t, b, returns(map[string]cty.Value{
		"count": cty.NumberIntVal(3),
		"words": cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.StringVal("B"), cty.StringVal("c")}),
		"meta": cty.ObjectVal(map[string]cty.Value{
			"lang": cty.StringVal("en"),
			"tags": cty.ObjectVal(map[string]cty.Value{"x": cty.NumberIntVal(1), "y": cty.NumberIntVal(5)}),
			"ok":   cty.NullVal(cty.DynamicPseudoType),
		}),
		"rest": cty.ObjectVal(map[string]cty.Value{
			"list": cty.TupleVal([]cty.Value{cty.NumberIntVal(1)}),
			"text": cty.StringVal("x\ny"),
		}),
		"same": cty.StringVal("s"),
	}), Options{})
	wantFailed(t, r, `outputs "count", "words", "meta" and "rest" differ from the example`)
	want := `- count = 2
+ count = 3
- words[1] = "b"
+ words[1] = "B"
- meta.ok = true
+ meta.ok = null
- meta.tags["a b"] = 2
+ meta.tags["y"] = 5
- rest.list = [1, 2]
+ rest.list = [1]
`
	if r.Diff != want {
		t.Errorf("diff:\n%s\nwant:\n%s", r.Diff, want)
	}
	if r.Actual == cty.NilVal || !r.Actual.GetAttr("same").RawEquals(cty.StringVal("s")) {
		t.Errorf("Actual = %#v", r.Actual)
	}
}

func TestDiffRendering(t *testing.T) {
	for _, tc := range []struct {
		name      string
		want, got cty.Value
		diff      string
	}{
		{"string", cty.StringVal("a \"q\""), cty.StringVal("b"), "- f = \"a \\\"q\\\"\"\n+ f = \"b\"\n"},
		{"fraction", cty.NumberFloatVal(0.5), cty.NumberFloatVal(0.25), "- f = 0.5\n+ f = 0.25\n"},
		{"kind", cty.StringVal("2"), cty.NumberIntVal(2), "- f = \"2\"\n+ f = 2\n"},
		{"null", cty.NullVal(cty.String), cty.ListValEmpty(cty.String), "- f = null\n+ f = []\n"},
		{"object", cty.EmptyObjectVal,
			cty.ObjectVal(map[string]cty.Value{"b": cty.False, "a": cty.SetVal([]cty.Value{cty.NumberIntVal(1)})}),
			"+ f.a = [1]\n+ f.b = false\n"},
		{"whole", cty.MapValEmpty(cty.String),
			cty.TupleVal([]cty.Value{cty.MapVal(map[string]cty.Value{"k 1": cty.StringVal("v")}), cty.EmptyObjectVal}),
			"- f = {}\n+ f = [{ \"k 1\" = \"v\" }, {}]\n"},
		{"unknown", cty.StringVal("a"), cty.UnknownVal(cty.String), "- f = \"a\"\n+ f = (unknown)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if equalValues(tc.want, tc.got) {
				t.Fatal("the values are equal")
			}
			var w strings.Builder
			writeDiff(&w, "f", tc.want, tc.got)
			if w.String() != tc.diff {
				t.Errorf("diff:\n%s\nwant:\n%s", w.String(), tc.diff)
			}
		})
	}
}

func TestEqualValues(t *testing.T) {
	n := func(s string) cty.Value { return cty.MustParseNumberVal(s) }
	for _, tc := range []struct {
		name string
		a, b cty.Value
	}{
		{"numbers by value", n("0.1"), cty.NumberFloatVal(0.1)},
		{"integers", cty.NumberIntVal(2), cty.NumberFloatVal(2)},
		{"nulls of any type", cty.NullVal(cty.String), cty.NullVal(cty.DynamicPseudoType)},
		{"list and tuple", cty.ListVal([]cty.Value{cty.True}), cty.TupleVal([]cty.Value{cty.True})},
		{"map and object", cty.MapVal(map[string]cty.Value{"a": cty.NumberIntVal(1)}), cty.ObjectVal(map[string]cty.Value{"a": n("1.0")})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !equalValues(tc.a, tc.b) || !equalValues(tc.b, tc.a) {
				t.Errorf("%#v and %#v are not equal", tc.a, tc.b)
			}
		})
	}
}

func TestPartialExampleOutput(t *testing.T) {
	// The example gives count only: longest may be anything.
	b := parseBlock(t, wordCount)
	r := runOne(t, b, returns(map[string]cty.Value{"count": cty.NumberIntVal(3), "longest": cty.StringVal("anything")}), Options{})
	wantPassed(t, r)
}

// TestNullOutput: a null for an output not declared optional fails the
// example, as it fails a step; an example may not expect one either.
func TestNullOutput(t *testing.T) {
	b := parseBlock(t, wordCount)
	r := runOne(t, b, returns(map[string]cty.Value{"count": cty.NumberIntVal(3), "longest": cty.NullVal(cty.DynamicPseudoType)}), Options{})
	wantFailed(t, r, `output "longest" of block "word_count" is null, and the output is not optional (declare it with optional = true when the block may return no value)`)

	b = parseBlock(t, strings.Replace(strings.Replace(wordCount, "output = { count = 3 }", "output = { count = 3, longest = null }", 1),
		"type = string\n  }\n  example", "type = string\n    optional = true\n  }\n  example", 1))
	r = runOne(t, b, returns(map[string]cty.Value{"count": cty.NumberIntVal(3), "longest": cty.NullVal(cty.String)}), Options{})
	wantPassed(t, r)

	b = parseBlock(t, strings.Replace(wordCount, "output = { count = 3 }", "output = { count = 3, longest = null }", 1))
	r = runOne(t, b, returns(map[string]cty.Value{"count": cty.NumberIntVal(3), "longest": cty.StringVal("ccc")}), Options{})
	wantFailed(t, r, `the example's output "longest" is null, and the output is not optional (declare it with optional = true when the block may return no value)`)
}

func TestMissingOutput(t *testing.T) {
	b := parseBlock(t, wordCount)
	r := runOne(t, b, returns(map[string]cty.Value{"count": cty.NumberIntVal(3)}), Options{})
	wantFailed(t, r, `block "word_count" returned no output "longest"`)
	if r.Actual != cty.NilVal || r.Diff != "" {
		t.Errorf("Actual = %#v, Diff = %q", r.Actual, r.Diff)
	}
}

func TestWrongOutputType(t *testing.T) {
	b := parseBlock(t, `
block "items" {
  runtime = "go"
  source  = "package block"
  output "items" {
    type = list(object({ n = number }))
  }
  example {
    input  = {}
    output = { items = [] }
  }
}
`)
	r := runOne(t, b, returns(map[string]cty.Value{"items": cty.TupleVal([]cty.Value{
		cty.ObjectVal(map[string]cty.Value{"n": cty.NumberIntVal(1)}),
		cty.ObjectVal(map[string]cty.Value{"n": cty.StringVal("two")}),
	})}), Options{})
	wantFailed(t, r, `output "items" of block "items" must be of type list(object({n=number})): [1].n: a number is required`)
}

func TestExecutorError(t *testing.T) {
	b := parseBlock(t, wordCount)
	r := runOne(t, b, fake(func(context.Context, *blocks.Call) (*blocks.Result, error) {
		return nil, errors.New(`block "word_count" failed at line 3: index out of range`)
	}), Options{})
	wantFailed(t, r, `block "word_count" failed at line 3: index out of range`)
	if r.Actual != cty.NilVal || r.Expected == cty.NilVal {
		t.Errorf("Actual = %#v, Expected = %#v", r.Actual, r.Expected)
	}
}

func TestTimeout(t *testing.T) {
	waits := fake(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	t.Run("block timeout", func(t *testing.T) {
		b := parseBlock(t, strings.Replace(wordCount, `runtime = "go"`, `runtime = "go"
  timeout = "30ms"`, 1))
		r := runOne(t, b, waits, Options{Timeout: time.Hour})
		wantFailed(t, r, "exceeded its 30ms timeout")
	})
	t.Run("default timeout", func(t *testing.T) {
		r := runOne(t, parseBlock(t, wordCount), waits, Options{Timeout: 20 * time.Millisecond})
		wantFailed(t, r, "exceeded its 20ms timeout")
	})
	t.Run("sandbox that stops the code first", func(t *testing.T) {
		// A sandbox stops the code at the deadline itself (a worker at
		// its own deadline, just after the caller's) and says so in its
		// own words.
		early := fake(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
			<-ctx.Done()
			return nil, errors.New(`block "word_count" exceeded its timeout; its code was stopped (Execute is at test.block.hcl:9)`)
		})
		r := runOne(t, parseBlock(t, wordCount), early, Options{Timeout: 50 * time.Millisecond})
		wantFailed(t, r, "exceeded its 50ms timeout")
	})
	t.Run("error long before the deadline", func(t *testing.T) {
		fails := fake(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
			return nil, errors.New("boom")
		})
		r := runOne(t, parseBlock(t, wordCount), fails, Options{Timeout: time.Hour})
		wantFailed(t, r, "boom")
	})
	t.Run("queued executor: waiting and building are not the example's time", func(t *testing.T) {
		// A sandbox that builds (or waits for a worker) first starts the
		// timeout itself when the code starts, as under apply.
		var got time.Duration
		q := &blocks.Executors{Runtimes: map[string]blocks.Executor{lang.RuntimeGo: queued{func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
			got = call.Timeout
			time.Sleep(100 * time.Millisecond) // the build, longer than the timeout
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return &blocks.Result{Outputs: map[string]cty.Value{"count": cty.NumberIntVal(3), "longest": cty.StringVal("ccc")}}, nil
		}}}}
		b := parseBlock(t, strings.Replace(wordCount, `runtime = "go"`, `runtime = "go"
  timeout = "20ms"`, 1))
		r := runOne(t, b, q, Options{})
		if got != 20*time.Millisecond {
			t.Errorf("the call's Timeout is %s, want the block's 20ms", got)
		}
		if r.Status != StatusPassed {
			t.Errorf("got %s (%s), want passed", r.Status, r.Error)
		}
		timesOut := &blocks.Executors{Runtimes: map[string]blocks.Executor{lang.RuntimeGo: queued{func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
			return nil, fmt.Errorf("the code ran too long: %w", context.DeadlineExceeded)
		}}}}
		wantFailed(t, runOne(t, b, timesOut, Options{}), "exceeded its 20ms timeout")
	})
	t.Run("executor that does not stop", func(t *testing.T) {
		defer func(d time.Duration) { abandonAfter = d }(abandonAfter)
		abandonAfter = 20 * time.Millisecond
		release := make(chan struct{})
		defer close(release)
		var logged []string
		stuck := fake(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
			<-release
			call.Log("after the timeout")
			return nil, nil
		})
		r := runOne(t, parseBlock(t, wordCount), stuck, Options{
			Timeout: 20 * time.Millisecond,
			Log:     func(_, line string) { logged = append(logged, line) },
		})
		wantFailed(t, r, "exceeded its 20ms timeout and did not stop")
		if len(logged) != 0 {
			t.Errorf("logged %q", logged)
		}
	})
}

const llmBlock = `
block "title" {
  runtime = "llm"
  prompt  = "A title for: ${input.text}"
  input "text" {
    type = string
  }
  output "title" {
    type = string
  }
  example {
    input  = { text = "a story about cats" }
    output = { title = "Cats" }
  }
}
`

func TestLLMSkipped(t *testing.T) {
	b := parseBlock(t, llmBlock)
	called := false
	ex := fake(func(context.Context, *blocks.Call) (*blocks.Result, error) {
		called = true
		return &blocks.Result{
			Outputs: map[string]cty.Value{"title": cty.StringVal("Cats"), "text": cty.StringVal(`{"title":"Cats"}`)},
			Usage:   &blocks.Usage{PromptTokens: 5, CompletionTokens: 3, TotalTokens: 8},
		}, nil
	})
	r := runOne(t, b, ex, Options{})
	if r.Status != StatusSkipped || r.Error != skipLLM || called {
		t.Errorf("got %s (%q), executor called: %t", r.Status, r.Error, called)
	}
	if !r.Expected.RawEquals(cty.ObjectVal(map[string]cty.Value{"title": cty.StringVal("Cats")})) {
		t.Errorf("Expected = %#v", r.Expected)
	}

	// With LLM set, the example runs; usage comes from the result's Usage.
	r = runOne(t, b, ex, Options{LLM: true})
	wantPassed(t, r)
	if !called || r.Actual.GetAttr("usage").GetAttr("total_tokens").RawEquals(cty.NumberIntVal(8)) == false {
		t.Errorf("called: %t, Actual = %#v", called, r.Actual)
	}
}

func TestSeveralExamples(t *testing.T) {
	b := parseBlock(t, `
block "double" {
  runtime = "js"
  source  = "function execute(input) { return { n: input.n * 2 } }"
  input "n" {
    type = number
  }
  output "n" {
    type = number
  }
  example {
    input  = { n = 1 }
    output = { n = 2 }
  }
  example {
    input  = { n = 2 }
    output = { n = 5 }
  }
  example {
    input  = { n = -1 }
    output = { n = -2 }
  }
}
`)
	var seen []string
	ex := fake(func(_ context.Context, call *blocks.Call) (*blocks.Result, error) {
		n := call.Inputs["n"]
		seen = append(seen, n.AsBigFloat().String())
		call.Log("n is " + n.AsBigFloat().String())
		if n.Equals(cty.NumberIntVal(-1)).True() {
			return nil, errors.New("negative")
		}
		return &blocks.Result{Outputs: map[string]cty.Value{"n": n.Multiply(cty.NumberIntVal(2))}}, nil
	})
	var logs []string
	rs := Run(context.Background(), b, ex, Options{Log: func(block, line string) { logs = append(logs, block+": "+line) }})
	if len(rs) != 3 {
		t.Fatalf("got %d results", len(rs))
	}
	wantPassed(t, rs[0])
	wantFailed(t, rs[1], `output "n" differs from the example`)
	if rs[1].Diff != "- n = 5\n+ n = 4\n" {
		t.Errorf("diff %q", rs[1].Diff)
	}
	wantFailed(t, rs[2], "negative")
	for i, r := range rs {
		if r.Example != i+1 || r.Block != "double" || r.Range.Start.Line != 11+4*i {
			t.Errorf("result %d is example %d of %s at line %d", i, r.Example, r.Block, r.Range.Start.Line)
		}
	}
	if strings.Join(seen, ",") != "1,2,-1" {
		t.Errorf("ran the examples with %v", seen)
	}
	if strings.Join(logs, "|") != "double: n is 1|double: n is 2|double: n is -1" {
		t.Errorf("logs %q", logs)
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rs := Run(ctx, parseBlock(t, wordCount), returns(nil), Options{})
	if len(rs) != 1 || rs[0].Status != StatusSkipped || rs[0].Error != "the tests were cancelled" {
		t.Errorf("got %+v", rs)
	}
}

func TestExecutorPanics(t *testing.T) {
	r := runOne(t, parseBlock(t, wordCount), fake(func(context.Context, *blocks.Call) (*blocks.Result, error) {
		var m map[string]int
		m["x"]++
		return nil, nil
	}), Options{})
	wantFailed(t, r, "the go executor panicked: assignment to entry in nil map")
}

func TestNoExamples(t *testing.T) {
	if rs := Run(context.Background(), blocks.Builtins()[0], returns(nil), Options{}); rs != nil {
		t.Errorf("a built-in gave %+v", rs)
	}
	if rs := Run(context.Background(), nil, nil, Options{}); rs != nil {
		t.Errorf("no block gave %+v", rs)
	}
}

// TestHostile runs examples and results that the compiler would not let
// through, or that a broken executor returns: each fails with a message.
func TestHostile(t *testing.T) {
	secret := cty.StringVal("a b").Mark(lang.Sensitive)
	for _, tc := range []struct {
		name    string
		input   cty.Value
		output  cty.Value
		outputs map[string]cty.Value // what the executor returns; nil: no result
		ex      *blocks.Executors    // default: returns outputs
		want    string               // "": passes
	}{
		{name: "no input", input: cty.NilVal, output: cty.EmptyObjectVal,
			want: "the example's input must be an object of field values"},
		{name: "input not an object", input: cty.StringVal("x"), output: cty.EmptyObjectVal,
			want: "the example's input must be an object of field values"},
		{name: "unknown input", input: cty.UnknownVal(cty.EmptyObject), output: cty.EmptyObjectVal,
			want: "the example's input must be an object of field values"},
		{name: "null output", input: obj("text", cty.StringVal("a")), output: cty.NullVal(cty.EmptyObject),
			want: "the example's output must be an object of field values"},
		{name: "unknown field", input: obj("text", cty.StringVal("a"), "txt", cty.True), output: cty.EmptyObjectVal,
			want: `the example gives input "txt", which block "word_count" does not have`},
		{name: "unknown output", input: obj("text", cty.StringVal("a")), output: obj("cnt", cty.True),
			want: `the example gives output "cnt", which block "word_count" does not have`},
		{name: "missing input", input: cty.EmptyObjectVal, output: cty.EmptyObjectVal,
			want: `the example gives no value for the required input "text"`},
		{name: "null input", input: obj("text", cty.NullVal(cty.String)), output: cty.EmptyObjectVal,
			want: `the example's input "text" is required and may not be null`},
		{name: "input of the wrong type", input: obj("text", cty.StringVal("a"), "opts", obj("lower", cty.StringVal("maybe"))), output: cty.EmptyObjectVal,
			want: `the example's input "opts" must be of type object({lower=bool}): .lower: a bool is required`},
		{name: "unknown input value", input: obj("text", cty.UnknownVal(cty.String)), output: cty.EmptyObjectVal,
			want: `the example's input "text" is not a known value`},
		{name: "output of the wrong type", input: obj("text", cty.StringVal("a")), output: obj("count", cty.StringVal("many")),
			want: `the example's output "count" must be a number: a number is required`},
		{name: "unknown output value", input: obj("text", cty.StringVal("a")), output: obj("count", cty.UnknownVal(cty.Number)),
			want: `the example's output "count" is not a known value`},
		{name: "marked values", input: obj("text", secret), output: obj("count", cty.NumberIntVal(2).Mark(lang.Sensitive)),
			outputs: map[string]cty.Value{"count": cty.NumberIntVal(2).Mark(lang.Sensitive), "longest": cty.StringVal("a")}},
		{name: "no result", input: obj("text", cty.StringVal("a")), output: cty.EmptyObjectVal,
			want: `block "word_count" returned no result`},
		{name: "unknown result", input: obj("text", cty.StringVal("a")), output: cty.EmptyObjectVal,
			outputs: map[string]cty.Value{"count": cty.UnknownVal(cty.Number), "longest": cty.StringVal("a")},
			want:    `output "count" of block "word_count" is not a known value`},
		{name: "NilVal result", input: obj("text", cty.StringVal("a")), output: cty.EmptyObjectVal,
			outputs: map[string]cty.Value{"count": cty.NilVal, "longest": cty.StringVal("a")},
			want:    `block "word_count" returned no output "count"`},
		{name: "no executors", input: obj("text", cty.StringVal("a")), output: cty.EmptyObjectVal,
			ex:   &blocks.Executors{},
			want: `block "word_count" has runtime "go", which this build cannot run yet`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := parseBlock(t, wordCount)
			b.Def.Examples[0].Input, b.Def.Examples[0].Output = tc.input, tc.output
			ex := tc.ex
			if ex == nil {
				ex = fake(func(context.Context, *blocks.Call) (*blocks.Result, error) {
					if tc.outputs == nil {
						return nil, nil
					}
					return &blocks.Result{Outputs: tc.outputs}, nil
				})
			}
			r := runOne(t, b, ex, Options{})
			if tc.want == "" {
				wantPassed(t, r)
				return
			}
			wantFailed(t, r, tc.want)
		})
	}
	t.Run("nil executors", func(t *testing.T) {
		r := runOne(t, parseBlock(t, wordCount), nil, Options{})
		wantFailed(t, r, `block "word_count" has runtime "go", and no executors were given`)
	})
	t.Run("unknown default", func(t *testing.T) {
		b := parseBlock(t, wordCount)
		b.Inputs[1].Default = cty.DynamicVal
		wantFailed(t, runOne(t, b, returns(nil), Options{}), `the default of input "min" is not a known value`)
	})
	t.Run("nil example", func(t *testing.T) {
		b := parseBlock(t, wordCount)
		b.Def.Examples[0] = nil
		wantFailed(t, runOne(t, b, returns(nil), Options{}), "the example is empty")
	})
}

// obj makes an object from name, value pairs.
func obj(kv ...any) cty.Value {
	m := map[string]cty.Value{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(cty.Value)
	}
	return cty.ObjectVal(m)
}

// queued is an executor that starts a call's timeout itself
// (blocks.Queued), as the sandbox's workers do.
type queued struct {
	f func(context.Context, *blocks.Call) (*blocks.Result, error)
}

func (q queued) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	return q.f(ctx, call)
}

func (queued) Queued() {}
