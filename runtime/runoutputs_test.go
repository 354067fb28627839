package runtime

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
)

// TestRunOutputs: output reads the newest successful run, or the run it
// is given when it has finished; an output without a value says why, an
// unknown one suggests a name; each problem is a diagnostic.
func TestRunOutputs(t *testing.T) {
	st, err := state.Open(filepath.Join(t.TempDir(), ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Now().Add(-time.Hour)
	diagnostic := func(err error) string {
		var diags hcl.Diagnostics
		if !errors.As(err, &diags) || len(diags) != 1 {
			t.Fatalf("%v is not one diagnostic", err)
		}
		return diags[0].Summary + ": " + diags[0].Detail
	}
	if _, err := OutputRun(st, "", "default", ""); !strings.HasPrefix(diagnostic(err), "No successful run: ") {
		t.Errorf("no run: %v", err)
	}
	for i, r := range []*state.Run{
		{ID: "good", Flow: "f", Namespace: "default", Status: "ok", Outputs: []byte(`{"greeting":"hi"}`)},
		{ID: "bad", Flow: "f", Namespace: "default", Status: "failed", Outputs: []byte(`{"greeting":"hi"}`),
			FailedOutputs: []byte(`[{"name":"total","step":"sum","reason":"step sum failed."}]`)},
		{ID: "busy", Flow: "f", Namespace: "default"},
	} {
		r.StartedAt = t0.Add(time.Duration(i) * time.Minute)
		if err := st.CreateRun(r); err != nil {
			t.Fatal(err)
		}
		if r.Status != "" {
			if err := st.FinishRun(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	run, err := OutputRun(st, "", "default", "")
	if err != nil || run.ID != "good" {
		t.Fatalf("the newest successful run: %v %v", run, err)
	}
	if _, err := OutputRun(st, "", "default", "busy"); !strings.HasPrefix(diagnostic(err), "Run not finished: Run busy ") {
		t.Errorf("a running run: %v", err)
	}
	if _, err := OutputRun(st, "", "default", "nope"); !errors.Is(err, state.ErrRunNotFound) {
		t.Errorf("an unknown run: %v", err)
	}
	bad, err := OutputRun(st, "", "default", "bad")
	if err != nil {
		t.Fatal(err)
	}
	outputs, failed, err := RunOutputs(bad)
	if err != nil || outputs["greeting"] != "hi" || len(failed) != 1 || failed[0].Name != "total" {
		t.Fatalf("RunOutputs: %v %v %v", outputs, failed, err)
	}
	if v, err := OutputValue(bad, "greeting", outputs, failed); err != nil || v != "hi" {
		t.Errorf("greeting: %v %v", v, err)
	}
	if _, err := OutputValue(bad, "total", outputs, failed); diagnostic(err) != `Output without a value: Run bad of flow "f" (failed) has no value for output "total": step sum failed.` {
		t.Errorf("total: %s", diagnostic(err))
	}
	if _, err := OutputValue(bad, "totl", outputs, failed); !strings.Contains(diagnostic(err), `has no output "totl". Did you mean "total"?`) {
		t.Errorf("totl: %s", diagnostic(err))
	}
}
