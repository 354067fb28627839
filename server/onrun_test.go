package server

import (
	"fmt"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime/state"
)

const ingestFlow = `flow "ingest" {}

input "n" { type = number }

output "batch_id" { value = "b-${input.n}" }
`

const afterFlow = `flow "after" {}

input "batch" { type = string }

output "got" { value = input.batch }

trigger "after_ingest" {
  on_run { flow = "ingest" }
  inputs = { batch = run.outputs.batch_id }
  when   = run.outputs.batch_id != "b-0"
}
`

// TestOnRunPages: an on_run trigger starts one run for each run that
// ends, when more ended at once than it reads at once, and none for a
// run its when leaves out.
func TestOnRunPages(t *testing.T) {
	defer func(n int) { onRunBatch = n }(onRunBatch)
	onRunBatch = 3
	ts := newTestServer(t, files{"ingest.flow.hcl": ingestFlow, "after.flow.hcl": afterFlow}, nil)
	const n = 11
	for i := range n {
		ts.start("ingest", fmt.Sprintf(`{"inputs": {"n": %d}}`, i))
	}
	deadline := time.Now().Add(time.Minute)
	for {
		runs, err := ts.store.ListRuns(state.RunFilter{Flow: "after"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) >= n-1 {
			// A little longer: a second start of one would show now.
			time.Sleep(4 * scheduleTick)
			runs, _ = ts.store.ListRuns(state.RunFilter{Flow: "after"}, 0)
			batches := map[string]bool{}
			for _, r := range runs {
				batches[string(r.Inputs)] = true
			}
			if len(runs) != n-1 || len(batches) != n-1 || batches[`{"batch":"b-0"}`] {
				t.Errorf("%d runs of after, by inputs %v; want %d, none for b-0", len(runs), batches, n-1)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d runs of after, want %d", len(runs), n-1)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
