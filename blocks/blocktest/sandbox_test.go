package blocktest

import (
	"context"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/gorun"
	"github.com/flowctl/flowctl/blocks/sandbox/jsrun"
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// sandboxes are the in-process executors of go and js blocks.
func sandboxes() *blocks.Executors {
	return &blocks.Executors{Runtimes: map[string]blocks.Executor{
		lang.RuntimeGo: gorun.NewExecutor(),
		lang.RuntimeJS: jsrun.NewExecutor(),
	}}
}

const goWordCount = `
block "word_count" {
  runtime = "go"
  timeout = "2s"
  input "text" {
    type = string
  }
  input "min" {
    type    = number
    default = 1
  }
  output "count" {
    type = number
  }
  output "words" {
    type = list(string)
  }
  source = <<-GO
    package block

    import (
      "context"
      "errors"
      "strings"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      text := input["text"].(string)
      if text == "fail" {
        return nil, errors.New("cannot count fail")
      }
      if text == "loop" {
        for {
        }
      }
      var words []any
      for _, w := range strings.Fields(text) {
        if float64(len(w)) >= input["min"].(float64) {
          words = append(words, w)
        }
      }
      if text == "wrong" {
        return map[string]any{"count": "one", "words": words}, nil
      }
      println("counted", len(words))
      return map[string]any{"count": len(words), "words": words}, nil
    }
  GO

  example {
    input  = { text = "a bb ccc", min = 2 }
    output = { count = 2 }
  }
  example {
    input  = { text = "a bb ccc" }
    output = { count = 2, words = ["a", "bb", "ccc"] }
  }
  example {
    input  = { text = "fail" }
    output = { count = 0 }
  }
  example {
    input  = { text = "wrong" }
    output = { count = 1 }
  }
}
`

func TestGoBlock(t *testing.T) {
	b := parseBlock(t, goWordCount)
	var logs []string
	rs := Run(context.Background(), b, sandboxes(), Options{Log: func(block, line string) { logs = append(logs, block+": "+line) }})
	if len(rs) != 4 {
		t.Fatalf("got %d results", len(rs))
	}
	wantPassed(t, rs[0])
	wantFailed(t, rs[1], `output "count" differs from the example`)
	if want := "- count = 2\n+ count = 3\n"; rs[1].Diff != want {
		t.Errorf("diff:\n%s\nwant:\n%s", rs[1].Diff, want)
	}
	// The go sandbox checks the outputs' types itself.
	wantFailed(t, rs[2], `block "word_count" returned an error: cannot count fail (Execute is at test.block.hcl:27)`)
	wantFailed(t, rs[3], `block "word_count" returned output "count", which must be a number: a number is required (Execute is at test.block.hcl:27)`)
	if strings.Join(logs, "|") != "word_count: counted 2|word_count: counted 3" {
		t.Errorf("logs %q", logs)
	}
}

func TestGoBlockTimeout(t *testing.T) {
	b := parseBlock(t, strings.Replace(goWordCount, `timeout = "2s"`, `timeout = "100ms"`, 1))
	b.Def.Examples[0].Input = obj("text", cty.StringVal("loop"))
	r := Run(context.Background(), b, sandboxes(), Options{})[0]
	wantFailed(t, r, "exceeded its 100ms timeout")
}

const jsKeywords = `
block "keywords" {
  runtime = "js"
  timeout = "100ms"
  input "text" {
    type = string
  }
  output "words" {
    type = list(string)
  }
  output "stats" {
    type = object({ total = number, long = number })
  }
  source = <<-JS
    function execute(input) {
      if (input.text === "loop") { for (;;) {} }
      if (input.text === "throw") { throw new Error("no text") }
      const all = input.text.split(/\W+/).filter(w => w)
      const words = all.filter(w => w.length > 4)
      console.log("found", words.length)
      if (input.text === "bad") { return { words: [1, {}], stats: {} } }
      return { words, stats: { total: all.length, long: words.length } }
    }
  JS

  example {
    input  = { text = "Flows wire typed blocks" }
    output = { words = ["Flows", "typed", "blocks"], stats = { total = 4, long = 3 } }
  }
  example {
    input  = { text = "Agents search pages" }
    output = { words = ["Agents", "search", "page"], stats = { total = 3, long = 2 } }
  }
  example {
    input  = { text = "bad" }
    output = { words = [] }
  }
  example {
    input  = { text = "throw" }
    output = { words = [] }
  }
  example {
    input  = { text = "loop" }
    output = { words = [] }
  }
}
`

func TestJSBlock(t *testing.T) {
	b := parseBlock(t, jsKeywords)
	var logs []string
	rs := Run(context.Background(), b, sandboxes(), Options{Log: func(block, line string) { logs = append(logs, block+": "+line) }})
	if len(rs) != 5 {
		t.Fatalf("got %d results", len(rs))
	}
	wantPassed(t, rs[0])
	wantFailed(t, rs[1], `outputs "words" and "stats" differ from the example`)
	if want := "- words[2] = \"page\"\n+ words[2] = \"pages\"\n- stats.long = 2\n+ stats.long = 3\n"; rs[1].Diff != want {
		t.Errorf("diff:\n%s\nwant:\n%s", rs[1].Diff, want)
	}
	wantFailed(t, rs[2], `output "words" of block "keywords" must be of type list(string): element 1: string required, but have object`)
	wantFailed(t, rs[3], `block "keywords" line 17: Error: no text`)
	wantFailed(t, rs[4], "exceeded its 100ms timeout")
	if len(logs) < 3 || logs[0] != "keywords: found 3" {
		t.Errorf("logs %q", logs)
	}
}
