package views

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"slices"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/blocktest"
	"github.com/flowctl/flowctl/blocks/index"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/compiler/flowdoc"
	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/event"
	"github.com/flowctl/flowctl/runtime/flowtest/result"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/thinker/thinkevent"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the goldens in testdata")

// t0 is when the fixed runs of the goldens started.
var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// goldenFlow is the flow the goldens of plan, graph and the diagnostics
// render.
const goldenFlow = `flow "gated" {}

input "count" {
  type    = number
  default = 2
}

step "prepare" {
  use   = "value"
  cache = true
  value = range(input.count)
}

step "expensive" {
  use      = "sleep"
  duration = "${length(step.prepare.value)}s"
}

step "report" {
  use   = "value"
  value = step.expensive
}

output "n" {
  value = step.prepare.value
}
`

// A golden renders a view from fixed data: what each output stream of
// each rendering (human, json, …) received, by name ("human/stdout").
type golden struct {
	name   string
	render func(t *testing.T, g *goldenOut)
}

// goldenOut collects the streams a golden's views print on.
type goldenOut struct {
	names   []string
	streams map[string]*bytes.Buffer
}

// w is the stream of that name, made on first use.
func (g *goldenOut) w(name string) *bytes.Buffer {
	if b, ok := g.streams[name]; ok {
		return b
	}
	g.names = append(g.names, name)
	g.streams[name] = &bytes.Buffer{}
	return g.streams[name]
}

// TestGoldens renders every command's views, for people and as JSON, from
// fixed data and compares them with testdata/NAME.txtar; -update rewrites
// the files.
func TestGoldens(t *testing.T) {
	local := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = local })
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	prog, files := compileGolden(t)
	for _, c := range goldens(t, prog, files) {
		t.Run(c.name, func(t *testing.T) {
			g := &goldenOut{streams: map[string]*bytes.Buffer{}}
			c.render(t, g)
			ar := &txtar.Archive{Comment: []byte("What the views of " + c.name + " print (go test -update rewrites this file).\n")}
			for _, n := range g.names {
				ar.Files = append(ar.Files, txtar.File{Name: n, Data: normalize(g.streams[n].Bytes())})
			}
			got := txtar.Format(ar)
			path := filepath.Join(testdata, c.name+".txtar")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs (go test -update rewrites it); got:\n%s", path, got)
			}
		})
	}
}

var nowTime = regexp.MustCompile(`"time": ?"[^"]*"`)

// normalize replaces what changes from run to run and machine to machine:
// the times of events stamped now, the Go version and platform.
func normalize(b []byte) []byte {
	b = nowTime.ReplaceAllFunc(b, func(m []byte) []byte {
		if bytes.Contains(m, []byte(event.JSONTime(t0))) {
			return m
		}
		return regexp.MustCompile(`"[^"]*"$`).ReplaceAll(m, []byte(`"NOW"`))
	})
	b = bytes.ReplaceAll(b, []byte(goruntime.Version()), []byte("GOVERSION"))
	b = bytes.ReplaceAll(b, []byte(goruntime.GOOS+"/"+goruntime.GOARCH), []byte("GOOS/GOARCH"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	return b
}

// compileGolden compiles goldenFlow in a directory of its own, named
// gated.flow.hcl, relative to which the goldens show it.
func compileGolden(t *testing.T) (*compiler.Program, map[string]*hcl.File) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "gated.flow.hcl"), []byte(goldenFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })
	parser := lang.NewParser()
	prog, diags := compiler.Compile("gated.flow.hcl", compiler.Options{Parser: parser})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return prog, parser.Files()
}

// goldenDiags are an error with a source range and a warning without.
func goldenDiags() hcl.Diagnostics {
	return hcl.Diagnostics{
		{Severity: hcl.DiagError, Summary: "Unsupported argument", Detail: `An argument named "vaule" is not expected here. Did you mean "value"?`,
			Subject: &hcl.Range{Filename: "gated.flow.hcl", Start: hcl.Pos{Line: 10, Column: 3, Byte: 130}, End: hcl.Pos{Line: 10, Column: 8, Byte: 135}}},
		{Severity: hcl.DiagWarning, Summary: "Unused input", Detail: "No step reads input \"count\"."},
	}
}

// goldenRun is a failed run of two steps, one of three instances, that
// started a run of another flow.
func goldenRun() (*RunTree, []*state.Approval) {
	run := &state.Run{ID: "r-20260304-1", Flow: "gated", Namespace: "default", Status: "failed", StartedAt: t0, FinishedAt: t0.Add(3 * time.Second),
		Inputs: json.RawMessage(`{"count":2}`), Outputs: json.RawMessage(`{"n":[0,1]}`), FailedOutputs: json.RawMessage(`[{"name":"total","reason":"step report failed"}]`),
		Error: "step report failed", Usage: json.RawMessage(`{"total_tokens":42}`)}
	steps := []*state.StepResult{
		{RunID: run.ID, Step: "prepare", Status: "ok", Attempts: 1, StartedAt: t0, FinishedAt: t0.Add(12 * time.Millisecond),
			Outputs: json.RawMessage(`{"value":{"value":[0,1]}}`), Log: "prepared\ntwo"},
		{RunID: run.ID, Step: "fetch", Instance: "0", Status: "ok", Attempts: 1, StartedAt: t0.Add(time.Second), FinishedAt: t0.Add(2 * time.Second)},
		{RunID: run.ID, Step: "fetch", Instance: "1", Status: "failed", Attempts: 3, StartedAt: t0.Add(time.Second), FinishedAt: t0.Add(2 * time.Second), Error: "HTTP 404: not found"},
		{RunID: run.ID, Step: "fetch", Instance: "2", Status: "failed", Attempts: 3, StartedAt: t0.Add(time.Second), FinishedAt: t0.Add(2 * time.Second), Error: "HTTP 404: not found"},
		{RunID: run.ID, Step: "report", Status: "skipped", Attempts: 0},
	}
	kid := &RunTree{Run: &state.Run{ID: "r-20260304-2", Flow: "sub", Status: "ok", Origin: "flow", StartedAt: t0, FinishedAt: t0.Add(time.Second),
		ParentRun: run.ID, ParentStep: "prepare"},
		Steps: []*state.StepResult{{Step: "inner", Status: "ok", Attempts: 1, StartedAt: t0, FinishedAt: t0.Add(5 * time.Millisecond)}}}
	tree := &RunTree{Run: run, Steps: steps, Children: map[string][]*RunTree{"prepare": {kid}},
		Outputs: map[string]any{"n": []any{0.0, 1.0}}, FailedOutputs: []event.FailedOutput{{Name: "total", Reason: "step report failed"}}}
	waits := []*state.Approval{{RunID: run.ID, Step: "review", Message: "Send it?", RequestedAt: t0, Deadline: t0.Add(time.Hour)}}
	return tree, waits
}

func goldens(t *testing.T, prog *compiler.Program, files map[string]*hcl.File) []golden {
	inputs, diags := prog.ResolveInputs(nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, diags := runtime.Plan(prog, runtime.Options{Inputs: inputs, Executors: &blocks.Executors{Builtins: blocks.BuiltinExecutors()}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	events := []event.Event{
		event.RunStarted{Time: t0, RunID: "r1", Flow: "gated", Steps: 3},
		event.StepFinished{Time: t0, Step: "prepare", Status: event.StatusOK, Attempts: 1, Duration: 12 * time.Millisecond},
		event.StepFinished{Time: t0, Step: "expensive", Status: event.StatusCached, Attempts: 1},
		event.StepFinished{Time: t0, Step: "report", Status: event.StatusFailed, Attempts: 2, Duration: 3 * time.Millisecond, Error: "the report failed\nat line 2"},
		event.RunFinished{Time: t0, RunID: "r1", Status: event.StatusFailed, Error: "step report failed"},
	}
	tree, waits := goldenRun()
	builtins := blocks.Builtins()
	var valueBlock *blocks.Block
	for _, b := range builtins {
		if b.Name == "value" {
			valueBlock = b
		}
	}
	return []golden{
		{"version", func(t *testing.T, g *goldenOut) {
			NewVersion(g.w("human/stdout"), false).Version("1.2.3")
			NewVersion(g.w("json/stdout"), true).Version("1.2.3")
		}},
		{"state", func(t *testing.T, g *goldenOut) {
			WriteStateVersion(g.w("sqlite/stdout"), ".flowctl", 7)
			m := &state.Migration{From: 6, To: 7, Statements: []string{"  ALTER TABLE runs ADD COLUMN x TEXT;\n", "CREATE INDEX i ON runs (x);"}}
			WriteMigration(g.w("current/stdout"), "postgres://db/flows", &state.Migration{From: 7, To: 7}, false)
			WriteMigration(g.w("dry-run/stdout"), "postgres://db/flows", m, true)
			WriteMigration(g.w("migrated/stdout"), "postgres://db/flows", m, false)
		}},
		{"diagnostics", func(t *testing.T, g *goldenOut) {
			WriteDiagnostics(g.w("human/stderr"), false, files, goldenDiags())
			WriteDiagnosticsJSON(g.w("json/stdout"), files, goldenDiags())
		}},
		{"validate", func(t *testing.T, g *goldenOut) {
			for _, format := range []string{"human", "json", "github"} {
				NewValidate(g.w(format+"/stdout"), g.w(format+"/stderr"), false, format).Result(files, goldenDiags(), 1, 2, 0)
			}
			NewValidate(g.w("valid/stdout"), g.w("valid/stderr"), false, "human").Result(files, nil, 1, 0, 1)
		}},
		{"plan", func(t *testing.T, g *goldenOut) {
			NewPlan(g.w("human/stdout"), false, false, "gpt-test").Plan(plan)
			NewPlan(g.w("json/stdout"), true, false, "gpt-test").Plan(plan)
			// The texts an embed step would embed, as plan counts them.
			embed := *plan
			embed.Steps = slices.Clone(plan.Steps)
			ps := *embed.Steps[0]
			ps.Embed = &compiler.PartCounts{Parts: 1200, Cached: 1180, New: 20, Unknown: 2}
			embed.Steps[0] = &ps
			NewPlan(g.w("embed/stdout"), false, false, "gpt-test").Plan(&embed)
			NewPlan(g.w("embed-json/stdout"), true, false, "gpt-test").Plan(&embed)
		}},
		{"apply", func(t *testing.T, g *goldenOut) {
			h := NewApplyHuman(g.w("human/stdout"), false, LabelWidth(prog), false)
			j := NewApplyJSON(g.w("json/stdout"))
			for _, e := range events {
				h.Event(e)
				j.Event(e)
			}
			h.Close()
			j.Close()
			WriteRunDiagnostics(g.w("human/stderr"), false, files, hcl.Diagnostics{
				{Severity: hcl.DiagError, Summary: "Step failed", Detail: "shown in the table", Extra: event.StepDiag{Step: "report"}},
				{Severity: hcl.DiagError, Summary: "Output failed", Detail: "Output total has no value."},
			})
		}},
		{"approve", func(t *testing.T, g *goldenOut) {
			WriteResumePlan(g.w("resume/stdout"), "r1", plan, []string{"step.report"}, nil)
			WriteHowToDecide(g.w("waiting/stderr"), "r1", []event.Waiting{
				{Step: "review", Instance: event.Key{Value: cty.StringVal("a b")}, Message: "Send 2 emails?", Deadline: t0.Add(time.Hour)},
			})
		}},
		{"watch", func(t *testing.T, g *goldenOut) {
			for _, jsonOut := range []bool{false, true} {
				name := map[bool]string{false: "human", true: "json"}[jsonOut]
				v := NewWatch(g.w(name+"/stdout"), g.w(name+"/stderr"), false, false, jsonOut, false, "/work")
				v.Event(event.CycleStarted{Time: t0, Cycle: 1})
				for _, e := range events[1:4] {
					v.Event(e)
				}
				v.Event(event.CycleFinished{Time: t0, Cycle: 1, Status: "ok", Duration: time.Second, Ran: 2, Cached: 1,
					Outputs: map[string]cty.Value{"n": cty.NumberIntVal(2)}, ChangedOutputs: []string{"n"}})
				v.Event(event.CycleStarted{Time: t0, Cycle: 2, Changed: []string{"/work/gated.flow.hcl"}})
				v.Event(event.CycleFinished{Time: t0, Cycle: 2, Status: "invalid", Diagnostics: goldenDiags()[:1], Files: files})
				v.Tests(2, []result.Result{{Test: "counts", Range: hcl.Range{Filename: "/work/gated.test.hcl", Start: hcl.Pos{Line: 3}}, Status: result.StatusPassed, Duration: time.Millisecond}}, files, nil)
				v.Close()
			}
		}},
		{"runs", func(t *testing.T, g *goldenOut) {
			for _, jsonOut := range []bool{false, true} {
				name := map[bool]string{false: "human", true: "json"}[jsonOut]
				v := NewRuns(g.w(name+"/list"), jsonOut)
				v.List([]*state.Run{tree.Run, tree.Children["prepare"][0].Run}, map[string]int{"r-20260304-2": 1}, map[string][]*state.Approval{})
				NewRuns(g.w(name+"/show"), jsonOut).Show(tree, waits)
				NewRuns(g.w(name+"/step"), jsonOut).Step(tree.Run.ID, "fetch", tree.Steps[1:4])
				l := NewLogs(g.w(name+"/logs"), jsonOut)
				l.Log(tree.Steps[0])
				l.Close()
			}
		}},
		{"runs_cost", func(t *testing.T, g *goldenOut) {
			// A run whose model calls had prices, all but one.
			priced := *tree
			run := *tree.Run
			run.Usage = json.RawMessage(`{"prompt_tokens":900,"completion_tokens":300,"total_tokens":1200,"cost_usd":0.0123,"calls":3,"unpriced_calls":1}`)
			priced.Run = &run
			steps := append([]*state.StepResult(nil), tree.Steps...)
			first := *steps[0]
			first.Usage = json.RawMessage(`{"prompt_tokens":900,"completion_tokens":300,"total_tokens":1200,"cost_usd":0.0123,"calls":3,"unpriced_calls":1}`)
			steps[0] = &first
			priced.Steps = steps
			for _, jsonOut := range []bool{false, true} {
				name := map[bool]string{false: "human", true: "json"}[jsonOut]
				NewRuns(g.w(name+"/show"), jsonOut).Show(&priced, nil)
			}
		}},
		{"output", func(t *testing.T, g *goldenOut) {
			WriteOutputHeader(g.w("human/stderr"), tree.Run, false, []string{"other"})
			for _, jsonOut := range []bool{false, true} {
				name := map[bool]string{false: "human", true: "json"}[jsonOut]
				v := NewOutput(g.w(name+"/stdout"), g.w(name+"/stderr"), jsonOut)
				v.All(map[string]any{"n": []any{0.0, 1.0}, "s": "text"}, tree.FailedOutputs)
				v.One("one value")
			}
		}},
		{"blocks", func(t *testing.T, g *goldenOut) {
			tools := []blocks.MCPTool{{Flow: "gated.flow.hcl", Server: &lang.MCPServer{Name: "files"}, Tool: "read", Description: "Reads a file.", InputSchema: json.RawMessage(`{"type":"object"}`)},
				{Flow: "gated.flow.hcl", Server: &lang.MCPServer{Name: "broken"}, Err: errors.New("connection refused")}}
			for _, jsonOut := range []bool{false, true} {
				name := map[bool]string{false: "human", true: "json"}[jsonOut]
				NewBlocks(g.w(name+"/list"), jsonOut).List([]*blocks.Block{valueBlock}, tools)
				NewBlocks(g.w(name+"/search"), jsonOut).Search("value", []index.Hit{{Block: valueBlock, Score: 1.5}})
				NewBlocks(g.w(name+"/show"), jsonOut).Show(valueBlock, nil)
			}
		}},
		{"docs", func(t *testing.T, g *goldenOut) {
			two := "2"
			d := &Docs{Flows: []FlowDoc{{Name: "gated", File: "gated.flow.hcl", Steps: 3, Description: "Gates a job.",
				Inputs:  []FieldDoc{{Name: "count", Type: "number", Default: &two, Description: "How many."}},
				Outputs: []FieldDoc{{Name: "n", Type: "list(number)"}}, Secrets: []SecretDoc{}, Blocks: []UsedBlockDoc{}, Tests: []TestDoc{{Name: "counts", File: "gated.test.hcl"}},
				Collections: []flowdoc.Collection{{Name: "notes", Dimensions: 768, Distance: "cosine", Steps: []string{"search"}, Description: "Our notes"}},
				Triggers: []TriggerDoc{{Name: "push", Method: "POST", Path: "/hooks/github", Verify: "github", Respond: "accepted"},
					{Name: "after_ingest", After: "ingest", Status: []string{"ok", "failed"}}},
				Limits: []flowdoc.Limit{{Kind: "concurrency", Key: "input.count", Limit: 1}, {Kind: "debounce", Key: `"all"`, Period: "30s"}}}},
				Blocks: []BlockDoc{}}
			WriteDocsMarkdown(g.w("markdown"), d)
			WriteJSON(g.w("json"), d)
		}},
		{"graph", func(t *testing.T, g *goldenOut) {
			gr := &Graph{Root: GraphCluster{Nodes: []GraphNode{{ID: "prepare", Name: "prepare", Label: "value", Bold: true}, {ID: "report", Name: "report", Label: "value"}},
				Clusters: []*GraphCluster{{ID: "sub", Label: "sub\nflow", Nodes: []GraphNode{{ID: "sub/inner", Name: "inner", Label: "value"}}}}},
				Edges: []GraphEdge{{From: "prepare", To: "sub/inner", Bold: true}, {From: "sub/inner", To: "report"}}}
			WriteDOT(g.w("dot"), prog, gr)
			WriteMermaid(g.w("mermaid"), prog, gr)
		}},
		{"fmt", func(t *testing.T, g *goldenOut) {
			WriteDiff(g.w("diff"), "gated.flow.hcl", []byte("a = 1\nb=2\n"), []byte("a = 1\nb = 2\n"))
		}},
		{"import", func(t *testing.T, g *goldenOut) {
			res := &importer.Result{Secrets: []importer.Secret{{Flow: "mail", Name: "key", Env: "MAIL_KEY", For: "the mail API key"}}, Next: []string{"Check the schedule."}}
			written := []importer.Written{{Path: "out/mail.flow.hcl"}, {Path: "out/blocks.hcl", Unchanged: true}}
			warn := goldenDiags()[1:]
			for _, jsonOut := range []bool{false, true} {
				name := map[bool]string{false: "human", true: "json"}[jsonOut]
				NewImport(g.w(name+"/written/stdout"), g.w(name+"/written/stderr"), false, jsonOut, false).Written(files, warn, written, res)
				if err := NewImport(g.w(name+"/failed/stdout"), g.w(name+"/failed/stderr"), false, jsonOut, false).Failed(files, goldenDiags()); !errors.Is(err, ErrReported) {
					t.Errorf("%s Failed: %v", name, err)
				}
			}
		}},
		{"test", func(t *testing.T, g *goldenOut) {
			br := []blocktest.Result{{Block: "value", Example: 1, Status: blocktest.StatusPassed, Duration: time.Millisecond, Expected: cty.NumberIntVal(1), Actual: cty.NumberIntVal(1)},
				{Block: "value", Example: 2, Status: blocktest.StatusFailed, Error: "outputs differ", Diff: "- value = 1\n+ value = 2", Duration: time.Millisecond,
					Range: hcl.Range{Filename: "/work/blocks.hcl", Start: hcl.Pos{Line: 7, Column: 3}}}}
			tr := []result.Result{{Test: "counts", Range: hcl.Range{Filename: "/work/gated.test.hcl", Start: hcl.Pos{Line: 3, Column: 1}}, Status: result.StatusFailed,
				Duration: 2 * time.Millisecond, Failures: goldenDiags()[:1]}}
			for _, format := range []string{"human", "json", "github", "junit"} {
				var xml []byte
				junit := func(b []byte) error { xml = b; return nil }
				if format != "junit" {
					junit = nil
				}
				v := NewTest(g.w(format+"/stdout"), format, "/work", junit)
				v.Block(br)
				v.Tests(tr, files)
				if err := v.Done(1); !errors.Is(err, ErrReported) {
					t.Errorf("%s: Done is %v, want ErrReported", format, err)
				}
				if format == "junit" {
					g.w("junit/report.xml").Write(xml)
				}
			}
		}},
		{"think", func(t *testing.T, g *goldenOut) {
			evs := []thinkevent.Event{
				thinkevent.StageStarted{Time: t0, Stage: thinkevent.StageDecompose, Try: 1, Intent: "Count my notes"},
				thinkevent.DecomposeBlocks{Time: t0, Blocks: []thinkevent.BlockSpec{{ID: "read"}, {ID: "count"}}},
				thinkevent.StageStarted{Time: t0, Stage: thinkevent.StageSearch},
				thinkevent.SearchFound{Time: t0, Block: "read", Found: "file", Runtime: blocks.RuntimeBuiltin, Score: 2, Relevance: 0.9, Reason: "reads files"},
				thinkevent.UsageReported{Time: t0, Usage: thinkevent.Usage{Calls: 2, PromptTokens: 100, CompletionTokens: 20, Stages: []thinkevent.StageUsage{{Stage: "decompose", Calls: 2, PromptTokens: 100, CompletionTokens: 20}}}},
				thinkevent.Complete{Time: t0, Flow: "notes", File: "notes.flow.hcl", Valid: true, BlocksFound: map[string]string{"read": "file"}, Steps: []string{"read", "count"}, Files: files},
			}
			for _, jsonOut := range []bool{false, true} {
				name := map[bool]string{false: "human", true: "json"}[jsonOut]
				v := NewThink(g.w(name+"/stdout"), g.w(name+"/stderr"), false, jsonOut, []string{"my blocks"})
				for _, e := range evs {
					v.Event(e)
				}
				v.Close()
			}
			WriteStillWrong(g.w("still-wrong/stderr"), false, files, goldenDiags())
		}},
		{"explain", func(t *testing.T, g *goldenOut) {
			run := tree.Run
			res := &thinkevent.ExplainResult{Diagnosis: "The page moved.", NoFixReason: "no fix passed its check"}
			for _, jsonOut := range []bool{false, true} {
				name := map[bool]string{false: "human", true: "json"}[jsonOut]
				v := NewExplain(g.w(name+"/stdout"), jsonOut)
				v.Event(thinkevent.StageStarted{Time: t0, Stage: thinkevent.StageExplain, Try: 1})
				v.Event(thinkevent.Explained{Time: t0, Try: 1, Diagnosis: "The page moved.", HasFix: true})
				v.Event(thinkevent.FixChecked{Time: t0, Try: 1, Summary: "use the new URL", Phase: "run", Problem: "still 404"})
				v.Done(run, res)
			}
			var f Failure
			if err := NewExplain(io.Discard, false).Fail(thinkevent.ErrBudget); !errors.As(err, &f) || f.Summary != "Token budget reached" {
				t.Errorf("Fail with the budget: %#v", err)
			}
		}},
		{"patterns", func(t *testing.T, g *goldenOut) {
			p := &state.Pattern{ID: "pt1", Name: "note_words", Intent: "Count the words\nof notes", Flow: "note_words", FlowFile: "note_words.flow.hcl",
				Origin: "think", Created: t0, Updated: t0, Used: 2, RunsOK: 3, RunsFailed: 1, TestPasses: 1, Source: "flow \"note_words\" {}\n",
				Blocks: []state.PatternBlock{{Name: "count", Path: "blocks/count.hcl", Source: "block \"count\" {}\n"}}}
			for _, jsonOut := range []bool{false, true} {
				name := map[bool]string{false: "human", true: "json"}[jsonOut]
				NewPatterns(g.w(name+"/list"), jsonOut).List([]*state.Pattern{p})
				NewPatterns(g.w(name+"/empty"), jsonOut).List(nil)
				NewPatterns(g.w(name+"/show"), jsonOut).Show(p)
				NewPatterns(g.w(name+"/forgot"), jsonOut).Forgot(p)
			}
		}},
		{"proposals", func(t *testing.T, g *goldenOut) {
			p := &state.Proposal{ID: "p1", Flow: "gated", FlowFile: "gated.flow.hcl", Intent: "Retry the fetch\nthree times", Created: t0, Status: "staged",
				Summary: json.RawMessage(`{"changed":["fetch"]}`), Diff: "--- old/gated.flow.hcl\n+++ new/gated.flow.hcl\n@@ -1 +1 @@\n-a\n+b\n",
				Weakenings: []state.Weakening{{Kind: "approval", Flow: "gated.flow.hcl", Subject: `step "review"`, Message: "It removes the approval of step review."}}}
			for _, jsonOut := range []bool{false, true} {
				name := map[bool]string{false: "human", true: "json"}[jsonOut]
				NewProposals(g.w(name+"/list"), false, jsonOut).List([]*state.Proposal{p})
				NewProposals(g.w(name+"/show"), false, jsonOut).Show(p)
			}
		}},
	}
}
