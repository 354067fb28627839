package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/state"
	"go.lsp.dev/protocol"
	"golang.org/x/tools/txtar"
)

const (
	flowFile  = "greet/greet.flow.hcl"
	childFile = "greet/count.flow.hcl"
	testFile  = "greet/greet.test.hcl"
	blockFile = "greet/blocks/shout.block.hcl"
)

func (c *client) at(rel, needle string, delta int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": c.uri(rel)}, "position": c.pos(rel, needle, delta)}
}

// TestConformance drives every feature of the server over a pipe, as an
// editor does, and compares each answer with its golden file.
func TestConformance(t *testing.T) {
	c := startServer(t, filepath.Join("testdata", "ws.txtar"))
	var init json.RawMessage
	c.golden("initialize", capabilities())
	_ = init

	// Diagnostics: the compiler's, on open.
	c.open(flowFile)
	d := c.diagnostics(flowFile, func(p protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) == 3 })
	c.golden("diagnostics_open", d)

	// Hover.
	hovers := []struct {
		name, file, needle string
		delta              int
	}{
		{"hover_use_block", flowFile, `use  = "shout"`, 10},
		{"hover_use_flow", flowFile, `"flow.count_words"`, 3},
		{"hover_step_field", flowFile, `step.shout.text`, 12},
		{"hover_step_splat", flowFile, `step.hello[*].value`, 6},
		{"hover_input", flowFile, `input.names`, 7},
		{"hover_local", flowFile, `local.greeting`, 7},
		{"hover_secret", flowFile, `secret.token`, 8},
		{"hover_memory", flowFile, `memory.runs + 1`, 8},
		{"hover_each", flowFile, `each.value`, 6},
		{"hover_function", flowFile, `join(`, 1},
		{"hover_argument", flowFile, `url = "https`, 1},
		{"hover_meta", flowFile, `on_error`, 2},
		{"hover_child_input_arg", flowFile, `names = input.names`, 1},
		{"hover_test_override", testFile, `step.post`, 6},
		{"hover_test_output", testFile, `output.greetings`, 8},
		{"hover_block_file", blockFile, `"shout"`, 2},
	}
	for _, h := range hovers {
		var res *protocol.Hover
		if err := c.call("textDocument/hover", c.at(h.file, h.needle, h.delta), &res); err != nil {
			t.Fatalf("%s: %v", h.name, err)
		}
		c.golden(h.name, res)
	}

	// A built-in's hover (not a golden: built-ins change with their
	// packages).
	var hb *protocol.Hover
	if err := c.call("textDocument/hover", c.at(flowFile, `use = "http"`, 8), &hb); err != nil || hb == nil ||
		!strings.Contains(hb.Contents.Value, "**block `http`** (built-in)") || !strings.Contains(hb.Contents.Value, "| `url` | `string` | required |") {
		t.Errorf("hover of a built-in: %v, %v", hb, err)
	}

	// Completion, on edits that leave lines half typed.
	c.open(testFile)
	completions := []struct {
		name, file, old, new, needle string
		delta                        int
	}{
		{"complete_arguments", flowFile, "step \"fetch\" {\n  use = \"http\"\n", "step \"fetch\" {\n  use = \"http\"\n  \n", "use = \"http\"\n  \n", 15},
		{"complete_use", flowFile, "  \n}", "}", `use = "http"
}`, 8},
		{"complete_use_block", flowFile, `use = "http"
}`, `use = "ht"
}`, `use = "ht"`, 9},
		{"complete_step", flowFile, `text  = step.shout.text`, `text  = step.`, `text  = step.`, 13},
		{"complete_step_field", flowFile, `text  = step.`, `text  = step.shout.`, `text  = step.shout.`, 19},
		{"complete_input", flowFile, `text  = step.shout.`, `text  = input.`, `text  = input.`, 14},
		{"complete_enum", flowFile, `on_error = "continue"`, `on_error = "c`, `on_error = "c`, 13},
		{"complete_function", flowFile, `text  = input.`, `text  = jo`, `text  = jo`, 10},
		{"complete_test_output", testFile, `condition     = output.greetings`, `condition     = output.`, `= output.`, 9},
		{"complete_flow_attributes", flowFile, `  description = "Greet people, loudly when asked"`, `  description = "Greet people, loudly when asked"
  v`, "\n  v", 4},
	}
	for _, cc := range completions {
		c.edit(cc.file, cc.old, cc.new)
		var res protocol.CompletionList
		if err := c.call("textDocument/completion", c.at(cc.file, cc.needle, cc.delta), &res); err != nil {
			t.Fatalf("%s: %v", cc.name, err)
		}
		for i := range res.Items {
			res.Items[i].Documentation = nil // hover's goldens cover it
		}
		c.golden(cc.name, res)
	}
	// Back to the files as they were.
	for _, rel := range []string{flowFile, testFile} {
		src, _ := os.ReadFile(filepath.Join(c.root, rel))
		c.edit(rel, c.docs[rel], string(src))
	}
	c.diagnostics(flowFile, func(p protocol.PublishDiagnosticsParams) bool {
		return p.Version == uint32(c.vers[flowFile]) && len(p.Diagnostics) == 3
	})

	// Definition.
	defs := []struct {
		name, file, needle string
		delta              int
	}{
		{"definition_step", flowFile, `step.shout.text`, 6},
		{"definition_input", flowFile, `input.loud ?`, 7},
		{"definition_local", flowFile, `local.greeting`, 7},
		{"definition_use_block", flowFile, `use  = "shout"`, 10},
		{"definition_use_flow", flowFile, `"flow.count_words"`, 8},
		{"definition_test_override", testFile, `step.post`, 6},
		{"definition_child_output", flowFile, `step.count.words`, 12},
	}
	for _, dd := range defs {
		var res []protocol.Location
		if err := c.call("textDocument/definition", c.at(dd.file, dd.needle, dd.delta), &res); err != nil {
			t.Fatalf("%s: %v", dd.name, err)
		}
		c.golden(dd.name, res)
	}

	// References: a step in the flow and its test; a sub-flow's input in
	// its parent.
	refs := []struct {
		name, file, needle string
		delta              int
	}{
		{"references_step", flowFile, `step "shout"`, 7},
		{"references_child_input", childFile, `input "text"`, 8},
		{"references_block", blockFile, `"shout"`, 2},
	}
	for _, r := range refs {
		p := c.at(r.file, r.needle, r.delta)
		p["context"] = map[string]any{"includeDeclaration": true}
		var res []protocol.Location
		if err := c.call("textDocument/references", p, &res); err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		c.golden(r.name, res)
	}

	// Rename, and a rename refused because the name is taken.
	var rng protocol.Range
	if err := c.call("textDocument/prepareRename", c.at(flowFile, `step "shout"`, 7), &rng); err != nil {
		t.Fatal(err)
	}
	c.golden("prepare_rename", rng)
	renames := []struct{ name, file, needle, to string }{
		{"rename_step", flowFile, `step "shout"`, "yell"},
		{"rename_child_output", childFile, `output "words"`, "count"},
		{"rename_block", blockFile, `"shout"`, "louder"},
	}
	for _, r := range renames {
		p := c.at(r.file, r.needle, len(r.needle)-3)
		p["newName"] = r.to
		var res protocol.WorkspaceEdit
		if err := c.call("textDocument/rename", p, &res); err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		c.golden(r.name, res)
	}
	for _, r := range []struct{ name, needle, to string }{
		{"rename_clash", `step "shout"`, "count"},
		{"rename_invalid", `step "shout"`, "Not-A-Name"},
		{"rename_builtin", `use = "http"`, "web"},
	} {
		p := c.at(flowFile, r.needle, len(r.needle)-3)
		p["newName"] = r.to
		err := c.call("textDocument/rename", p, nil)
		if err == nil {
			t.Fatalf("%s: the rename was not refused", r.name)
		}
		c.golden(r.name, err.Error())
	}

	// Code actions: the diagnostics' quick fixes, extract, fmt.
	var diags []protocol.Diagnostic
	for _, dg := range c.diagnostics(flowFile, func(protocol.PublishDiagnosticsParams) bool { return true }).Diagnostics {
		diags = append(diags, dg)
	}
	for i, dg := range diags {
		var res []protocol.CodeAction
		p := map[string]any{"textDocument": map[string]any{"uri": c.uri(flowFile)}, "range": dg.Range,
			"context": map[string]any{"diagnostics": []protocol.Diagnostic{dg}}}
		if err := c.call("textDocument/codeAction", p, &res); err != nil {
			t.Fatal(err)
		}
		c.golden("code_action_"+itoa(i), res)
	}
	sel := c.pos(flowFile, `join(" ", step.hello[*].value)`, 0)
	selEnd := c.pos(flowFile, `join(" ", step.hello[*].value)`, len(`join(" ", step.hello[*].value)`))
	var extract []protocol.CodeAction
	if err := c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": c.uri(flowFile)},
		"range": protocol.Range{Start: sel, End: selEnd}, "context": map[string]any{"diagnostics": []any{}}}, &extract); err != nil {
		t.Fatal(err)
	}
	c.golden("code_action_extract", extract)

	// Formatting, exactly as flowctl fmt: a misaligned file is aligned.
	c.edit(flowFile, `  use      = "value"`, `  use = "value"`)
	var edits []protocol.TextEdit
	if err := c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": c.uri(flowFile)},
		"options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits); err != nil {
		t.Fatal(err)
	}
	if len(edits) != 1 || !strings.Contains(edits[0].NewText, `  use      = "value"`) {
		t.Errorf("formatting: %v", edits)
	}
	src, _ := os.ReadFile(filepath.Join(c.root, flowFile))
	if edits[0].NewText != string(src) {
		t.Errorf("formatting does not give what flowctl fmt writes")
	}
	c.edit(flowFile, `  use = "value"`, `  use      = "value"`)

	// Symbols.
	var syms []protocol.DocumentSymbol
	c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": c.uri(flowFile)}}, &syms)
	c.golden("document_symbols", syms)
	var wsyms []protocol.SymbolInformation
	c.call("workspace/symbol", map[string]any{"query": "word"}, &wsyms)
	c.golden("workspace_symbols", wsyms)

	// Semantic tokens and inlay hints.
	var toks protocol.SemanticTokens
	c.call("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": c.uri(childFile)}}, &toks)
	c.golden("semantic_tokens", toks)
	var hints []inlayHint
	c.call("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": c.uri(flowFile)},
		"range": protocol.Range{End: protocol.Position{Line: 1000}}}, &hints)
	c.golden("inlay_hints", hints)

	// Code lens: reference counts, and the last run from the state of
	// the project, the workspace folder's (as for flowctl apply
	// greet/greet.flow.hcl there).
	recordRun(t, filepath.Join(c.root, ".flowctl"), filepath.Join(c.root, "greet", "greet.flow.hcl"))
	var lenses []protocol.CodeLens
	c.call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": c.uri(flowFile)}}, &lenses)
	c.golden("code_lens", lenses)

	// Across files: a block file's edit re-checks the flow that uses it;
	// a sub-flow's edit re-checks its parent; a test file is checked
	// against its flow.
	c.open(blockFile)
	c.edit(blockFile, `output "text"`, `output "shouted"`)
	d = c.diagnostics(flowFile, func(p protocol.PublishDiagnosticsParams) bool { return hasMessage(p, "no output named \"text\"") })
	c.golden("diagnostics_block_edit", d)
	c.edit(blockFile, `output "shouted"`, `output "text"`)
	c.diagnostics(flowFile, func(p protocol.PublishDiagnosticsParams) bool { return !hasMessage(p, "no output named") })

	c.open(childFile)
	c.edit(childFile, `input "names" {
  type    = list(string)
  default = []
}`, `input "names" {
  type = list(string)
}`)
	c.diagnostics(flowFile, func(p protocol.PublishDiagnosticsParams) bool {
		return !hasMessage(p, "requires input \"names\"") // names is given: no error
	})
	c.edit(childFile, `input "text" {`, `input "body" {`)
	d = c.diagnostics(flowFile, func(p protocol.PublishDiagnosticsParams) bool { return hasMessage(p, "Flow does not compile") })
	c.golden("diagnostics_subflow_edit", d)
	c.edit(childFile, `input "body" {`, `input "text" {`)

	c.edit(flowFile, `${input.nmae}`, `${input.names[0]}`)
	c.edit(flowFile, `X-Api         = secret.api_key`, `X-Api         = secret.token`)
	c.edit(flowFile, "step \"fetch\" {\n  use = \"http\"\n}", "step \"fetch\" {\n  use = \"http\"\n  url = \"https://example.com\"\n}")
	c.diagnostics(flowFile, func(p protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) == 0 })
	c.edit(testFile, `override "step.post"`, `override "step.psot"`)
	d = c.diagnostics(testFile, func(p protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) > 0 })
	c.golden("diagnostics_test_file", d)

	// A mock's step path reaches into the flow a step uses, as for
	// flowctl test: a path that names no step there is an error.
	c.edit(testFile, `override "step.psot"`, `override "step.post"`)
	c.edit(testFile, `mock "shout" {`, "mock \"value\" {\n    step    = \"count.splitt\"\n    outputs = { value = [] }\n  }\n  mock \"shout\" {")
	c.diagnostics(testFile, func(p protocol.PublishDiagnosticsParams) bool {
		return len(p.Diagnostics) == 1 && hasMessage(p, `Did you mean "count.split"?`)
	})
	c.edit(testFile, `"count.splitt"`, `"count.split"`)
	c.diagnostics(testFile, func(p protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) == 0 })
}

func hasMessage(p protocol.PublishDiagnosticsParams, s string) bool {
	for _, d := range p.Diagnostics {
		if strings.Contains(d.Message, s) {
			return true
		}
	}
	return false
}

// recordRun records a run of the greet flow (flowFile) in the state
// stateDir, as apply does.
func recordRun(t *testing.T, stateDir, flowFile string) {
	t.Helper()
	st, err := state.Open(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	run := &state.Run{ID: "run1", Flow: "greet", FlowFile: flowFile, Status: "failed", StartedAt: start}
	if err := st.CreateRun(run); err != nil {
		t.Fatal(err)
	}
	st.RecordStep(&state.StepResult{RunID: "run1", Step: "shout", Status: "ok", Attempts: 1, StartedAt: start, FinishedAt: start.Add(120 * time.Millisecond)})
	st.RecordStep(&state.StepResult{RunID: "run1", Step: "post", Status: "failed", Attempts: 1, StartedAt: start, FinishedAt: start.Add(time.Second), Error: "connection refused"})
	for i, inst := range []string{"0", "1"} {
		st.RecordStep(&state.StepResult{RunID: "run1", Step: "hello", Instance: inst, Status: "ok", Attempts: 1, StartedAt: start, FinishedAt: start.Add(time.Duration(i+1) * time.Millisecond)})
	}
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
}

// TestCompletionTakesWhatTheBlockTakes: a step's completions are what its
// block accepts (no tools on an http step, no parallelism without
// for_each), also while the line being typed leaves the file unparsed
// and the step is one the last parse did not have.
func TestCompletionTakesWhatTheBlockTakes(t *testing.T) {
	c := startServer(t, filepath.Join("testdata", "ws.txtar"))
	c.open(flowFile)
	c.diagnostics(flowFile, func(p protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) == 3 })
	labels := func(needle string, delta int) map[string]bool {
		t.Helper()
		var res protocol.CompletionList
		if err := c.call("textDocument/completion", c.at(flowFile, needle, delta), &res); err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, it := range res.Items {
			got[it.Label] = true
		}
		return got
	}
	check := func(what string, got map[string]bool, want, not []string) {
		t.Helper()
		for _, w := range want {
			if !got[w] {
				t.Errorf("%s: no completion %q in %v", what, w, got)
			}
		}
		for _, n := range not {
			if got[n] {
				t.Errorf("%s: completion %q, which the step does not take", what, n)
			}
		}
	}

	// An http step of the parsed file.
	c.edit(flowFile, "step \"fetch\" {\n  use = \"http\"\n", "step \"fetch\" {\n  use = \"http\"\n  \n")
	check("http step", labels("use = \"http\"\n  \n", 15), []string{"url", "method", "max_bytes", "for_each", "output"},
		[]string{"use", "tools", "max_tool_calls", "parallelism", "on_timeout", "input"})

	// A new http step, half typed: the file does not parse, and the last
	// parse has no step "get".
	c.edit(flowFile, "step \"fetch\" {\n  use = \"http\"\n  \n", "step \"get\" {\n  use = \"http\"\n  m\n}\n\nstep \"fetch\" {\n  use = \"http\"\n")
	check("half-typed http step", labels("use = \"http\"\n  m", 16), []string{"method", "max_bytes", "url"},
		[]string{"use", "tools", "max_tool_calls", "parallelism"})

	// An llm step: tools, and max_tool_calls once tools are set;
	// parallelism once for_each is.
	c.edit(flowFile, "step \"get\" {\n  use = \"http\"\n  m\n}", "step \"get\" {\n  use = \"llm\"\n  for_each = input.names\n  m\n}")
	check("llm step", labels("for_each = input.names\n  m", 26), []string{"model", "tools", "parallelism"},
		[]string{"for_each", "max_tool_calls"})
	c.edit(flowFile, "  for_each = input.names\n  m\n", "  tools = [block.shout]\n  m\n")
	check("llm step with tools", labels("tools = [block.shout]\n  m", 25), []string{"max_tool_calls"},
		[]string{"tools", "parallelism"})

	// The limits of a flow's runs: the blocks, and their arguments.
	c.edit(flowFile, "step \"get\" {", "rate_limit {\n  \n}\n\nstep \"get\" {")
	check("rate_limit block", labels("rate_limit {\n  ", 15), []string{"key", "limit", "period"}, []string{"use", "for_each"})
	c.edit(flowFile, "rate_limit {", "deb\n\nrate_limit {")
	check("top level", labels("deb\n\nrate_limit", 3), []string{"debounce"}, nil)

	// An approval step: on_timeout and its input fields, which other
	// steps do not take.
	c.edit(flowFile, "step \"get\" {\n  use = \"llm\"\n", "step \"get\" {\n  use = \"approval\"\n  o\n")
	check("approval step", labels("use = \"approval\"\n  o", 20), []string{"on_timeout", "input", "message"}, []string{"tools", "output"})
}

// TestCompletionOfDependencies: in a block definition, the language
// server completes the dependency attributes (requirements, packages,
// require) with snippets of their shape.
func TestCompletionOfDependencies(t *testing.T) {
	c := startServer(t, filepath.Join("testdata", "ws.txtar"))
	c.open(blockFile)
	c.edit(blockFile, "  runtime     = \"js\"\n", "  runtime     = \"js\"\n  re\n")
	var res protocol.CompletionList
	if err := c.call("textDocument/completion", c.at(blockFile, "\n  re\n", 5), &res); err != nil {
		t.Fatal(err)
	}
	snippets := map[string]string{}
	for i, it := range res.Items {
		if it.TextEdit != nil {
			snippets[it.Label] = it.TextEdit.NewText
		}
		res.Items[i].Documentation = nil
	}
	for name, want := range map[string]string{
		"requirements": `requirements = ["${1:package>=1.0}"]`,
		"packages":     `packages = { "${1:name}" = "${2:^1.0.0}" }`,
		"require":      `require = { "${1:module/path}" = "${2:v1.0.0}" }`,
	} {
		if snippets[name] != want {
			t.Errorf("completion %s: %q, want %q", name, snippets[name], want)
		}
	}
	c.golden("complete_block_attributes", res)
}

// TestRenameReachesTestStepPaths: renaming a step, or a sub-flow's step
// or output, edits the test files' step paths (override "step.a.b", a
// mock's step = "a.b") and override outputs too, so that the tests still
// name what the flows have; references list the same places.
func TestRenameReachesTestStepPaths(t *testing.T) {
	c := startServer(t, filepath.Join("testdata", "paths.txtar"))
	const main, chunk, test, suite = "app/main.flow.hcl", "app/chunk.flow.hcl", "app/main.test.hcl", "suite.test.hcl"
	for _, rel := range []string{main, chunk, test, suite} {
		c.open(rel)
	}
	rename := func(rel, needle string, delta int, to string) map[string]string {
		t.Helper()
		p := c.at(rel, needle, delta)
		p["newName"] = to
		var res protocol.WorkspaceEdit
		if err := c.call("textDocument/rename", p, &res); err != nil {
			t.Fatalf("rename %s: %v", needle, err)
		}
		out := map[string]string{}
		for _, rel := range []string{main, chunk, test, suite} {
			edits := res.Changes[c.uri(rel)]
			src := []byte(c.docs[rel])
			tx := newText(src)
			sort.Slice(edits, func(i, j int) bool { return tx.offset(edits[i].Range.Start) > tx.offset(edits[j].Range.Start) })
			for _, e := range edits {
				from, to := tx.offset(e.Range.Start), tx.offset(e.Range.End)
				src = append(append(append([]byte{}, src[:from]...), e.NewText...), src[to:]...)
			}
			out[rel] = string(src)
		}
		return out
	}
	has := func(what, text string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the text has no %q:\n%s", what, w, text)
			}
		}
	}

	got := rename(main, `step "read"`, 7, "load")
	has("rename step read", got[main], `step "load"`, `text = step.load.value`)
	has("rename step read", got[test], `override "step.load"`, `step.load.value != ""`)
	has("rename step read", got[suite], `override "step.load"`, `expect_failures = [step.load]`) // a test of another directory

	got = rename(chunk, `step "ask"`, 7, "query")
	has("rename sub-flow step ask", got[chunk], `step "query"`, `value = step.query.text`)
	has("rename sub-flow step ask", got[test], `step    = "summarize.query"`, `override "step.summarize.query"`)
	if strings.Contains(got[test], "summarize.ask") {
		t.Errorf("rename sub-flow step ask: the test still names summarize.ask:\n%s", got[test])
	}

	got = rename(chunk, `output "summary"`, 9, "gist")
	has("rename sub-flow output", got[main], `value = step.summarize.gist`)
	has("rename sub-flow output", got[test], `outputs = { gist = "given" }`, `step.summarize.gist == "given"`)
	has("rename sub-flow output", got[test], `output.summary == "short"`) // main's own output

	// From the test file: a path's name is the step's, with its
	// references in both flows and the test.
	p := c.at(test, `"step.summarize.ask"`, 16)
	p["context"] = map[string]any{"includeDeclaration": true}
	var locs []protocol.Location
	if err := c.call("textDocument/references", p, &locs); err != nil {
		t.Fatal(err)
	}
	files := map[string]int{}
	for _, l := range locs {
		files[filepath.Base(string(l.URI))]++
	}
	if files["chunk.flow.hcl"] != 2 || files["main.test.hcl"] != 2 || len(locs) != 4 {
		t.Errorf("references of summarize.ask from the test: %v", locs)
	}
	var defs []protocol.Location
	if err := c.call("textDocument/definition", c.at(test, `"summarize.ask"`, 12), &defs); err != nil {
		t.Fatal(err)
	}
	if len(defs) != 1 || filepath.Base(string(defs[0].URI)) != "chunk.flow.hcl" || defs[0].Range.Start.Line != 8 {
		t.Errorf("definition of the mock's summarize.ask: %v, want step ask of chunk.flow.hcl", defs)
	}
}

// TestEachValueHint: the server's diagnostic of each.NAME, where NAME is
// an attribute of the for_each collection's elements, says each.value.NAME,
// as validate does.
func TestEachValueHint(t *testing.T) {
	c := startServer(t, filepath.Join("testdata", "ws.txtar"))
	c.open(childFile)
	c.edit(childFile, "step \"split\" {\n  use   = \"value\"\n  value = split(\" \", input.text)\n}",
		"step \"split\" {\n  use      = \"value\"\n  for_each = [{ word = \"a\" }]\n  value    = each.word\n}")
	c.diagnostics(childFile, func(p protocol.PublishDiagnosticsParams) bool {
		return p.Version == uint32(c.vers[childFile]) && hasMessage(p, "Did you mean each.value.word?")
	})
}

// TestCodeLensProjectState: the code lens reads the state the CLI uses
// (project.State): in a git repository (here a worktree's, whose .git is
// a file), the .flowctl at its top for a flow in a subdirectory, which an
// apply in that subdirectory made; not one next to the flow.
func TestCodeLensProjectState(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "ws.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(src)
	ar.Files = append(ar.Files, txtar.File{Name: ".git", Data: []byte("gitdir: /elsewhere/.git/worktrees/ws\n")})
	archive := filepath.Join(t.TempDir(), "ws.txtar")
	if err := os.WriteFile(archive, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, archive)
	flowFile := filepath.Join("greet", "greet.flow.hcl")
	c.open(flowFile)
	recordRun(t, filepath.Join(c.root, ".flowctl"), filepath.Join(c.root, flowFile))
	var lenses []protocol.CodeLens
	c.call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": c.uri(flowFile)}}, &lenses)
	found := false
	for _, l := range lenses {
		if l.Command != nil && strings.HasPrefix(l.Command.Title, "last run: ") {
			found = true
		}
	}
	if !found {
		t.Errorf("no lens of the last run recorded at the repository's top: %+v", lenses)
	}
}

// TestEvalFileDiagnostics: an eval file gets the diagnostics validate
// gives it, as it is edited: an unknown dataset field at its range, then
// none once fixed.
func TestEvalFileDiagnostics(t *testing.T) {
	c := startServer(t, filepath.Join("testdata", "eval.txtar"))
	const eval = "triage/triage.eval.hcl"
	c.open(eval)
	c.edit(eval, "row.category", "row.label")
	p := c.diagnostics(eval, func(p protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) > 0 })
	d := p.Diagnostics[0]
	if !strings.Contains(d.Message, `The dataset data.jsonl has no field "label" in its first rows; it has category, text.`) ||
		d.Range.Start.Line != 8 || d.Range.Start.Character != 18 {
		t.Errorf("diagnostic %+v", d)
	}
	c.edit(eval, "row.label", "row.category")
	c.diagnostics(eval, func(p protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) == 0 })
}

// TestCompletionTrigger: a trigger block completes its arguments and its
// webhook and on_run blocks, a webhook block its own, and verify its
// values.
func TestCompletionTrigger(t *testing.T) {
	c := startServer(t, filepath.Join("testdata", "ws.txtar"))
	c.open(flowFile)
	c.diagnostics(flowFile, func(p protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) == 3 })
	labels := func(needle string, delta int) map[string]bool {
		t.Helper()
		var res protocol.CompletionList
		if err := c.call("textDocument/completion", c.at(flowFile, needle, delta), &res); err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, it := range res.Items {
			got[it.Label] = true
		}
		return got
	}
	const anchor = "step \"fetch\" {\n"
	c.edit(flowFile, anchor, "trigger \"hook\" {\n  \n  webhook {\n    \n    verify = \"\"\n  }\n}\n\n"+anchor)
	for _, c := range []struct {
		what, needle string
		delta        int
		want         []string
	}{
		{"trigger", "trigger \"hook\" {\n  \n", 20, []string{"webhook", "on_run", "inputs", "when", "respond", "timeout"}},
		{"webhook", "webhook {\n    \n", 15, []string{"path", "verify", "secret", "tolerance", "header", "max_body", "body_schema"}},
		{"verify", "verify = \"", 10, []string{"github", "stripe", "standard", "hmac", "basic", "header", "none"}},
		{"top level", "trigger", 0, []string{"trigger", "schedule"}},
	} {
		got := labels(c.needle, c.delta)
		for _, w := range c.want {
			if !got[w] {
				t.Errorf("%s: no completion %q in %v", c.what, w, got)
			}
		}
	}
}
