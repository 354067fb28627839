package temporal

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
)

// logLines collects an engine's JSON log lines.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// messages are the lines' messages, each with its attributes.
func (l *logLines) messages(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(l.buf.Bytes()), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("log line %s: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// find is the first line with msg and the attributes of attrs (pairs of
// a key and a value).
func (l *logLines) find(t *testing.T, msg string, attrs ...string) map[string]any {
	t.Helper()
	for _, m := range l.messages(t) {
		ok := m["msg"] == msg
		for i := 0; ok && i+1 < len(attrs); i += 2 {
			ok = m[attrs[i]] == attrs[i+1]
		}
		if ok {
			return m
		}
	}
	return nil
}

// TestReload: a run of a version of its flow that the worker has not
// loaded makes it compile its flows again; a run of the version it had
// still runs (the version is kept while a run of it is unfinished in the
// state, and dropped after); a version nobody has is refused, and the
// refusal is logged.
func TestReload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.flow.hcl")
	write := func(v int) {
		src := "flow \"f\" {}\nstep \"v\" {\n  use   = \"value\"\n  value = " + string(rune('0'+v)) + "\n}\noutput \"v\" { value = step.v.value }\n"
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load := func() ([]*compiler.Program, error) {
		prog, diags := compiler.Compile(path, compiler.Options{Parser: lang.NewParser()})
		if diags.HasErrors() {
			return nil, diags
		}
		return []*compiler.Program{prog}, nil
	}
	write(1)
	v1, err := load()
	if err != nil {
		t.Fatal(err)
	}
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var logs logLines
	e, err := NewEngine(v1, Options{Store: st, Reload: load, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	run := func(prog *compiler.Program, id string) (*RunOutput, error) {
		t.Helper()
		env := newEnv(e)
		in, err := NewRunInput(prog, nil, id, "", false)
		if err != nil {
			t.Fatal(err)
		}
		env.ExecuteWorkflow(WorkflowName, in)
		if err := env.GetWorkflowError(); err != nil {
			return nil, err
		}
		var out *RunOutput
		return out, env.GetWorkflowResult(&out)
	}
	// A run of version 1 that has not finished keeps version 1 on the
	// worker through the reload.
	if err := st.CreateRun(&state.Run{ID: "unfinished", Flow: "f", SourceHash: v1[0].SourceHash, Origin: Origin}); err != nil {
		t.Fatal(err)
	}

	write(2)
	v2, err := load()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := run(v2[0], "run-v2"); err != nil || out.Status != "ok" {
		t.Fatalf("a run of the edited flow: %+v, %v", out, err)
	}
	if r, _ := st.Run("run-v2"); r == nil || !strings.Contains(string(r.Outputs), "2") {
		t.Errorf("the run of version 2 recorded %+v", r)
	}
	m := logs.find(t, "flow reloaded")
	if m == nil || m["flow"] != "f" || m["source"] != short(v2[0].SourceHash) || m["previous_source"] != short(v1[0].SourceHash) {
		t.Errorf("reload logged %v\n%s", m, logs.buf.String())
	}
	if out, err := run(v1[0], "run-v1"); err != nil || out.Status != "ok" {
		t.Fatalf("a run of the first version after the reload: %+v, %v", out, err)
	}
	if r, _ := st.Run("run-v1"); r == nil || !strings.Contains(string(r.Outputs), "1") {
		t.Errorf("the run of version 1 recorded %+v", r)
	}

	// Once no unfinished run is of version 1, the next reload drops it.
	if err := st.FinishRun(&state.Run{ID: "unfinished", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	write(3)
	v3, err := load()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := run(v3[0], "run-v3"); err != nil || out.Status != "ok" {
		t.Fatalf("a run of version 3: %+v, %v", out, err)
	}
	if m := logs.find(t, "flow version dropped: no unfinished run is of it", "source", short(v1[0].SourceHash)); m == nil {
		t.Errorf("version 1 not dropped: %v\n%s", m, logs.buf.String())
	}
	if _, err := run(v1[0], "run-v1-again"); err == nil || !strings.Contains(err.Error(), "deploy the flow's files to the workers") {
		t.Fatalf("a run of a dropped version: %v", err)
	}
	if m := logs.find(t, "run refused: other version of its flow"); m == nil || m["source"] != short(v1[0].SourceHash) || m["worker_source"] != short(v3[0].SourceHash) {
		t.Errorf("refusal logged %v\n%s", m, logs.buf.String())
	}

	// A flow that does not compile any more keeps the versions loaded.
	if err := os.WriteFile(path, []byte("flow \"f\" {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(v3[0], "run-v3-again"); err != nil || out.Status != "ok" {
		t.Fatalf("a run of version 3 after a broken edit: %+v, %v", out, err)
	}
	if _, err := run(v1[0], "run-v1-broken"); err == nil {
		t.Fatal("a run of a dropped version ran")
	}
	if m := logs.find(t, "flows not reloaded: they do not load; the worker keeps the versions it has"); m == nil {
		t.Errorf("the failed reload is not logged:\n%s", logs.buf.String())
	}
}
