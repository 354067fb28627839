package thinker

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

func strp(s string) *string { return &s }

func wireFrom(t *testing.T, src string) *wireReply {
	t.Helper()
	var r wireReply
	if err := json.Unmarshal([]byte(src), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// TestRenderFlow checks the flow made from a wire reply: expressions are
// written as given (templates, functions, references), arguments in the
// block's order, defaults as HCL values, depends_on as references; the
// result is formatted and compiles. A step named twice in depends_on is
// written once.
func TestRenderFlow(t *testing.T) {
	r := wireFrom(t, `{
		"name": "fetch_words", "description": "Fetch a page and count its words",
		"inputs": [
			{"name": "url", "type": "string", "description": "The page", "default": "https://example.com/${x}"},
			{"name": "tags", "type": "list(string)", "description": "", "default": ["a", "b"]},
			{"name": "limit", "type": "number", "description": "", "default": null}
		],
		"steps": [
			{"name": "get", "use": "http", "args": {"method": "\"GET\"", "url": "\"${input.url}?q=${urlencode(join(\",\", input.tags))}\"", "headers": null}, "depends_on": []},
			{"name": "echo", "use": "value", "args": {"value": "length(step.get.text) + input.limit"}, "depends_on": ["step.get", "get", " step.get "]}
		],
		"outputs": [{"name": "size", "value": "step.echo.value"}]
	}`)
	src, _, diags := renderFlow(r, blocks.NewRegistry())
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := `flow "fetch_words" {
  description = "Fetch a page and count its words"
}

input "url" {
  type        = string
  description = "The page"
  default     = "https://example.com/$${x}"
}

input "tags" {
  type    = list(string)
  default = ["a", "b"]
}

input "limit" {
  type = number
}

step "get" {
  use    = "http"
  url    = "${input.url}?q=${urlencode(join(",", input.tags))}"
  method = "GET"
}

step "echo" {
  use        = "value"
  depends_on = [step.get]
  value      = length(step.get.text) + input.limit
}

output "size" {
  value = step.echo.value
}
`
	if string(src) != want {
		t.Errorf("got:\n%s\nwant:\n%s", src, want)
	}
	if _, diags := compiler.Compile("fetch_words.flow.hcl", compiler.Options{Source: src}); diags.HasErrors() {
		t.Errorf("does not compile: %v", diags)
	}
}

// TestRenderFlowBadExpressions checks that expressions and types that do
// not parse are diagnostics worded for the model, left out of the file.
func TestRenderFlowBadExpressions(t *testing.T) {
	r := wireFrom(t, `{
		"name": "f", "description": "",
		"inputs": [{"name": "n", "type": "list of numbers", "description": "", "default": null}],
		"steps": [{"name": "get", "use": "http", "args": {"url": "https://example.com", "bad-name!": "1", "method": "\"GET\""}, "depends_on": ["not a step"]}],
		"outputs": [{"name": "o", "value": "step.get.text +"}]
	}`)
	src, _, diags := renderFlow(r, blocks.NewRegistry())
	var got []string
	for _, d := range diags {
		if d.Subject != nil {
			t.Errorf("diagnostic with a range: %v", d)
		}
		got = append(got, d.Summary+": "+d.Detail)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		`Invalid type expression: The input "n" has the type "list of numbers", which is not an HCL type expression`,
		`Invalid expression: The argument "url" of step "get", "https://example.com", is not a valid HCL expression`,
		`Text is written in quotes, as in "\"https://example.com\""`,
		`Invalid argument name: Step "get" has an argument named "bad-name!"`,
		`Invalid depends_on: Step "get" depends on "not a step"`,
		`Invalid expression: The value of output "o", "step.get.text +", is not a valid HCL expression`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(string(src), "example.com") || !strings.Contains(string(src), `method = "GET"`) {
		t.Errorf("the bad argument should be left out, the good one kept:\n%s", src)
	}
}

// TestRenderBlock checks block files made from create_block replies: the
// code is a heredoc that reads back exactly (tabs, ${ in JS templates, a
// line equal to the marker), examples are HCL values, an llm prompt keeps
// its interpolations.
func TestRenderBlock(t *testing.T) {
	goSrc := "package block\n\nimport (\n\t\"context\"\n\t\"strings\"\n)\n\nfunc Execute(ctx context.Context, input map[string]any) (map[string]any, error) {\n\ts := `GO\n${x} %{y}`\n\t_ = s\n\treturn map[string]any{\"count\": len(strings.Fields(input[\"text\"].(string)))}, nil\n}\n"
	jsSrc := "function execute(input) {\n  return { greeting: `Hello ${input.name}!` }\n}"
	prompt := "Summarize in ${input.n} bullets:\n\n${input.text}"
	cases := []struct {
		name, runtime string
		reply         createReply
		source        string
	}{
		{"words", "go", createReply{Runtime: "go", Source: strp(goSrc)}, goSrc},
		{"greet", "js", createReply{Runtime: "js", Source: strp(jsSrc)}, jsSrc + "\n"},
		{"summarize", "llm", createReply{Runtime: "llm", Prompt: strp(prompt)}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.reply
			r.Description = "A block"
			r.Inputs = []FieldSpec{{Name: "text", Type: "string", Description: "The text"}, {Name: "n", Type: "number"}}
			r.Outputs = []FieldSpec{{Name: "count", Type: "number"}}
			r.Example.Input = json.RawMessage(`{"text": "a ${b} c", "n": 2}`)
			r.Example.Output = json.RawMessage(`{"count": 3}`)
			src, diags := renderBlock(c.name, &r)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			p := lang.NewParser()
			f, diags := p.ParseSource(src, "b.block.hcl")
			if diags.HasErrors() {
				t.Fatalf("%v\n%s", diags, src)
			}
			defs, diags := lang.DecodeBlockFile(f)
			if diags.HasErrors() || len(defs) != 1 {
				t.Fatalf("%v\n%s", diags, src)
			}
			def := defs[0]
			if def.Name != c.name || def.Runtime != c.runtime || def.Description != "A block" {
				t.Errorf("definition %+v", def)
			}
			if def.Source != c.source {
				t.Errorf("source reads back as\n%q\nwant\n%q\n%s", def.Source, c.source, src)
			}
			if got := def.Examples[0].Input.GetAttr("text").AsString(); got != "a ${b} c" {
				t.Errorf("example input text %q", got)
			}
			if _, diags := blocks.FromDef(def); diags.HasErrors() {
				t.Errorf("FromDef: %v", diags)
			}
			if c.runtime == "llm" {
				if !strings.Contains(string(src), "${input.text}") || def.Prompt == nil {
					t.Errorf("prompt lost its interpolation:\n%s", src)
				}
			} else if d := compiler.CheckCode(defs, ""); d.HasErrors() {
				t.Errorf("code does not compile: %v\n%s", d, src)
			}
		})
	}
}

func TestRenderBlockProblems(t *testing.T) {
	r := createReply{Runtime: "llm", Prompt: strp("Summarize ${input.text"),
		Inputs: []FieldSpec{{Name: "text", Type: "strin g"}}}
	r.Example.Input = json.RawMessage(`"a"`)
	r.Example.Output = json.RawMessage(`{}`)
	_, diags := renderBlock("x", &r)
	var got []string
	for _, d := range diags {
		got = append(got, d.Summary)
	}
	if strings.Join(got, ",") != "Invalid type expression,Invalid prompt template,Invalid example input" {
		t.Errorf("diagnostics: %v", diags)
	}
	r = createReply{Runtime: "go"}
	_, diags = renderBlock("x", &r)
	if !hasSummary(diags, "Missing source") {
		t.Errorf("no source: %v", diags)
	}
}

func hasSummary(diags hcl.Diagnostics, summary string) bool {
	for _, d := range diags {
		if d.Summary == summary {
			return true
		}
	}
	return false
}

func TestFileStem(t *testing.T) {
	for in, want := range map[string]string{
		"research": "research", "My Flow": "my_flow", "../../etc": "etc", "": "flow", "Ünïcode": "n_code",
	} {
		if got := fileStem(in); got != want {
			t.Errorf("fileStem(%q) = %q, want %q", in, got, want)
		}
	}
}
