package index

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
)

// ports builds ports from "name: type" specs.
func ports(t testing.TB, specs ...string) []Port {
	t.Helper()
	var out []Port
	for _, f := range fields(t, specs...) {
		out = append(out, Port{Name: f.Name, Type: f.Type.Type})
	}
	return out
}

func TestCompatible(t *testing.T) {
	bs := map[string]*blocks.Block{}
	for _, b := range catalog(t) {
		bs[b.Name] = b
	}
	bs["counter"] = block(t, blockSpec{name: "counter", runtime: "go",
		inputs: []string{"text: number", "unit: string = null"}, outputs: []string{"count: string"}})
	bs["two_strings"] = block(t, blockSpec{name: "two_strings", runtime: "js",
		inputs: []string{"a: string", "b: string"}, outputs: []string{"joined: string"}})
	bs["config"] = block(t, blockSpec{name: "config", runtime: "js",
		inputs: []string{"settings: object({ name = string, size = number })"}, outputs: []string{"ok: bool"}})

	for _, tc := range []struct {
		name            string
		block           string
		inputs, outputs []string
		why             string // "" for compatible
	}{
		{name: "exact", block: "word_count",
			inputs: []string{"text: string"}, outputs: []string{"count: number"}},
		{name: "optional input given too", block: "word_count",
			inputs: []string{"text: string", "min: number"}, outputs: []string{"count: number"}},
		{name: "no outputs wanted", block: "word_count", inputs: []string{"text: string"}},
		{name: "number converts to a string input", block: "translate_text",
			inputs: []string{"text: number", "target_language: string"}, outputs: []string{"text: string"}},
		{name: "output converts to string", block: "classify_sentiment",
			inputs: []string{"text: string"}, outputs: []string{"confidence: string"}},
		{name: "input of type any takes anything", block: "json_path",
			inputs: []string{"document: map(list(number))", "path: string"}, outputs: []string{"value: list(string)"}},
		{name: "output of type any converts to anything", block: "http",
			inputs: []string{"url: string"}, outputs: []string{"body: list(object({ url = string }))", "status: number"}},
		{name: "input renamed, matched by its type", block: "html_to_markdown",
			inputs: []string{"page: string"}, outputs: []string{"markdown: string"}},
		{name: "renamed input among optional ones", block: "word_count",
			inputs: []string{"content: string"}, outputs: []string{"count: number"}},
		{name: "open outputs", block: "llm",
			inputs: []string{"prompt: string"}, outputs: []string{"bullets: list(string)", "text: string"}},
		{name: "renamed input takes the one left", block: "two_strings",
			inputs: []string{"a: string", "x: string"}, outputs: []string{"joined: string"}},
		{name: "list of any", block: "dedupe_urls",
			inputs: []string{"urls: list(any)"}, outputs: []string{"urls: list(string)"}},
		{name: "object with the same attributes", block: "config",
			inputs: []string{"settings: object({ name = string, size = number })"}},

		{name: "input of the wrong type", block: "counter",
			inputs: []string{"text: string"}, outputs: []string{"count: string"},
			why: `input "text" is a number, want string`},
		{name: "list where a string is taken", block: "word_count",
			inputs: []string{"text: list(string)"},
			why:    `input "text" is a string, want list(string)`},
		{name: "output of the wrong type", block: "counter",
			inputs: []string{"text: number"}, outputs: []string{"count: number"},
			why: `output "count" is a string, want number`},
		{name: "object of another shape", block: "config",
			inputs: []string{"settings: object({ name = string })"},
			why:    `input "settings" is an object({name=string,size=number}), want object({name=string})`},
		{name: "missing output", block: "scrape",
			inputs: []string{"url: string"}, outputs: []string{"markdown: string"},
			why: `no output "markdown"; the outputs are "title", "text", "links", "html"`},
		{name: "required input not wanted", block: "translate_text",
			inputs: []string{"text: string"}, outputs: []string{"text: string"},
			why: `input "target_language" (string) is required and not among the wanted inputs`},
		{name: "renamed input of no type there", block: "format_date",
			inputs: []string{"when: list(number)"},
			why:    `no input "when", and no other input takes list(number); input "timestamp" (number) is required and not among the wanted inputs`},
		{name: "renamed input, several fit", block: "two_strings",
			inputs: []string{"x: string"}, outputs: []string{"joined: string"},
			why: `no input "x", and the inputs "a", "b" all take string; input "a" (string) is required and not among the wanted inputs; input "b" (string) is required and not among the wanted inputs`},
		{name: "every problem is told", block: "word_count",
			inputs: []string{"text: map(string)", "min: string"}, outputs: []string{"words: number", "count: list(number)"},
			why: `input "text" is a string, want map(string); input "min" is a number, want string; no output "words"; the outputs are "count"; output "count" is a number, want list(number)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bs[tc.block]
			if b == nil {
				t.Fatalf("no block %q", tc.block)
			}
			ok, why := Compatible(b, ports(t, tc.inputs...), ports(t, tc.outputs...))
			if ok != (tc.why == "") || why != tc.why {
				t.Errorf("Compatible(%s) = %v, %q\nwant %v, %q", tc.block, ok, why, tc.why == "", tc.why)
			}
		})
	}
}

// TestCompatibleAfterSearch is the thinker's use: search, then keep the
// first hit whose interface fits.
func TestCompatibleAfterSearch(t *testing.T) {
	ix := New(catalog(t))
	in, out := ports(t, "url: string"), ports(t, "text: string")
	var found string
	var rejected []string
	for _, h := range ix.Search("get the text of a web page", 0) {
		if ok, why := Compatible(h.Block, in, out); ok {
			found = h.Block.Name
			break
		} else {
			rejected = append(rejected, h.Block.Name+": "+why)
		}
	}
	if found != "scrape" {
		t.Errorf("found %q, want scrape; rejected:\n%s", found, strings.Join(rejected, "\n"))
	}
}
