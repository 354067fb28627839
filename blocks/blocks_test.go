package blocks

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

func TestBuiltinCatalog(t *testing.T) {
	wantCache := map[string]bool{"smtp": false, "imap": false, "http": false, "llm": false, "scrape": false, "sleep": false, "sql": false, "file": true, "value": false,
		"document": true, "chunk": false, "embed": true}
	wantSensitive := map[string]bool{"smtp": false, "imap": false, "http": false, "scrape": false, "sql": false, "file": false, "sleep": false, "value": true, "llm": true, "mcp": true,
		"document": true, "chunk": true, "embed": true}
	r := NewRegistry()
	if got := strings.Join(r.Names(), ","); got != "approval,chunk,document,embed,file,http,imap,llm,mcp,scrape,sleep,smtp,sql,value,vector_delete,vector_search,vector_upsert" {
		t.Fatalf("built-ins: %s", got)
	}
	for _, b := range r.All() {
		if b.CacheDefault != wantCache[b.Name] {
			t.Errorf("%s: cache default %v", b.Name, b.CacheDefault)
		}
		if b.PropagatesSensitive != wantSensitive[b.Name] {
			t.Errorf("%s: propagates sensitive %v", b.Name, b.PropagatesSensitive)
		}
		for _, f := range append(append([]*lang.Field{}, b.Inputs...), b.Outputs...) {
			if !lang.ValidName(f.Name) || lang.IsMetaArgument(f.Name) {
				t.Errorf("%s: field name %q", b.Name, f.Name)
			}
		}
	}
	http := r.Lookup("http")
	if in := http.Input("method"); in.Required() || in.Default.AsString() != "GET" {
		t.Errorf("http method default: %#v", in.Default)
	}
	if !http.Input("url").Required() {
		t.Error("http url is not required")
	}
	if got := http.OutputType(); !got.Equals(cty.Object(map[string]cty.Type{
		"status": cty.Number, "headers": cty.Map(cty.String), "body": cty.DynamicPseudoType, "text": cty.String,
	})) {
		t.Errorf("http outputs: %#v", got)
	}
	if !r.Lookup("llm").OpenOutputs || r.Lookup("http").OpenOutputs {
		t.Error("only llm has open outputs")
	}
}

func loadDefs(t *testing.T, src string) []*lang.BlockDef {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "x.block.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	defs, diags := ParseBlockFile(lang.NewParser(), path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return defs
}

// TestValueIsBounded: the value block computes on its caller's goroutine,
// so the runtime runs no more of its instances at once than there are
// processors.
func TestValueIsBounded(t *testing.T) {
	b, ok := BuiltinExecutors()["value"].(Bounded)
	if !ok || b.Width(nil) != goruntime.GOMAXPROCS(0) {
		t.Fatalf("the value executor is not bounded by GOMAXPROCS: %#v", BuiltinExecutors()["value"])
	}
}

func TestUserBlocks(t *testing.T) {
	defs := loadDefs(t, `
block "summarize" {
  runtime = "llm"
  prompt  = "Summarize: ${input.text}"
  input "text" {
    type = string
  }
  output "bullets" {
    type = list(string)
  }
}

block "double" {
  runtime = "js"
  source  = "function execute(i) { return { n: i.n * 2 } }"
  input "n" {
    type = number
  }
  output "n" {
    type = number
  }
  example {
    input  = { n = "two" }
    output = { n = 4, extra = 1 }
  }
}
`)
	r := NewRegistry()
	diags := r.AddDefs(defs)
	var summaries []string
	for _, d := range diags {
		summaries = append(summaries, d.Summary+" @"+lang.RangeString(*d.Subject)[len(filepath.Dir(d.Subject.Filename))+1:])
	}
	want := []string{
		"Invalid example input @x.block.hcl:23,20",
		"Unknown example output @x.block.hcl:24,23",
	}
	if strings.Join(summaries, "\n") != strings.Join(want, "\n") {
		t.Fatalf("diagnostics:\n%s\nwant:\n%s", strings.Join(summaries, "\n"), strings.Join(want, "\n"))
	}
	s := r.Lookup("summarize")
	if got := strings.Join(s.OutputNames(), ","); got != "text,usage,bullets" {
		t.Errorf("llm block outputs: %s", got)
	}
	if s.CacheDefault || !r.Lookup("double").CacheDefault {
		t.Error("cache defaults: llm false, js true")
	}

	// A second definition of a name, or a built-in's name, is an error.
	diags = r.AddDefs(loadDefs(t, "block \"double\" {\n  runtime = \"js\"\n  source = \"x\"\n}\nblock \"http\" {\n  runtime = \"js\"\n  source = \"x\"\n}\n"))
	if len(diags) != 2 || diags[0].Summary != "Duplicate block definition" || diags[1].Summary != "Reserved block name" {
		t.Fatalf("duplicates: %v", diags)
	}
	if !strings.Contains(diags[0].Detail, "x.block.hcl:13,7") {
		t.Errorf("duplicate does not point at the first definition: %s", diags[0].Detail)
	}
}

func TestPromptReferences(t *testing.T) {
	defs := loadDefs(t, `
block "bad" {
  runtime = "llm"
  prompt  = "${input.txt} ${step.x.y}"
  input "text" {
    type = string
  }
}
`)
	diags := NewRegistry().AddDefs(defs)
	if len(diags) != 2 {
		t.Fatalf("want 2 diagnostics, got %v", diags)
	}
	if diags[0].Summary != "Unknown input" || !strings.Contains(diags[0].Detail, `Did you mean "text"?`) {
		t.Errorf("first: %s: %s", diags[0].Summary, diags[0].Detail)
	}
	if diags[1].Summary != "Invalid reference in prompt" || diags[1].Subject.Start.Column != 29 {
		t.Errorf("second: %s at %v", diags[1].Summary, diags[1].Subject)
	}
}

func TestParseBlocks(t *testing.T) {
	bs, diags := ParseBlocks([]byte(`block "up" {
  runtime = "js"
  input "s" { type = string }
  output "s" { type = string }
  source = "function execute(i) { return { s: i.s.toUpperCase() } }"
}
`), "up.block.hcl")
	if diags.HasErrors() || len(bs) != 1 || bs[0].Name != "up" || bs[0].Inputs[0].Name != "s" {
		t.Fatalf("blocks %v, diagnostics %v", bs, diags)
	}
	_, diags = ParseBlocks([]byte("block \"x\" {\n  runtime = \"cobol\"\n}\n"), "x.block.hcl")
	if !diags.HasErrors() || diags[0].Subject == nil || diags[0].Subject.Start.Line != 2 {
		t.Fatalf("diagnostics %v", diags)
	}
}

// TestCheckNull: an output a flow file declares may be null only when it
// is optional; one an llm block's runtime adds (text), which a test's
// mock may leave out, may be null.
func TestCheckNull(t *testing.T) {
	f, diags := lang.NewParser().ParseSource([]byte(`
block "note" {
  runtime = "llm"
  prompt  = "Summarize"
  output "summary" {
    type = string
  }
  output "extra" {
    type     = string
    optional = true
  }
}
`), "note.block.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	defs, diags := lang.DecodeBlockFile(f)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	b, diags := FromDef(defs[0])
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	null := cty.NullVal(cty.String)
	if err := b.CheckNull(b.Output("summary"), null); err == nil || !strings.Contains(err.Error(), `output "summary" of block "note" is null`) {
		t.Errorf("summary: %v", err)
	}
	if err := b.CheckNull(b.Output("summary"), cty.StringVal("s")); err != nil {
		t.Errorf("a value: %v", err)
	}
	if err := b.CheckNull(b.Output("extra"), null); err != nil {
		t.Errorf("optional: %v", err)
	}
	text := b.Output("text")
	if text == nil {
		t.Fatalf("an llm block has no text output: %v", b.OutputNames())
	}
	if err := b.CheckNull(text, null); err != nil {
		t.Errorf("the runtime's text: %v", err)
	}
}

// TestRemoteBuiltins: the built-ins that call a model, the network or an
// MCP server say so (a flow test without --live refuses them), and so
// does a user block of the llm runtime; the others stay on the machine.
func TestRemoteBuiltins(t *testing.T) {
	got := map[string]Remote{}
	for _, b := range Builtins() {
		if r := b.Reaches(); r != "" {
			got[b.Name] = r
		}
	}
	want := map[string]Remote{"http": RemoteNetwork, "scrape": RemoteNetwork, "sql": RemoteNetwork, "smtp": RemoteNetwork, "imap": RemoteNetwork, "llm": RemoteModel, "mcp": RemoteMCP, "embed": RemoteModel}
	if len(got) != len(want) {
		t.Errorf("remote built-ins: %v", got)
	}
	for name, r := range want {
		if got[name] != r {
			t.Errorf("%s: %q, want %q", name, got[name], r)
		}
	}
	if r := (&Block{Name: "title", Runtime: lang.RuntimeLLM}).Reaches(); r != RemoteModel {
		t.Errorf("an llm block: %q", r)
	}
	if r := (&Block{Name: "count", Runtime: lang.RuntimeJS}).Reaches(); r != "" {
		t.Errorf("a js block: %q", r)
	}
}
