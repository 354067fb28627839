package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/runtime/state"
)

// runsPrune is runs prune: it deletes finished runs, with their step
// results, events, logs and approvals, the runs they started, and the
// blob files nothing refers to any more (state.Store.Prune).
func runsPrune(s streams, f *arguments.State, p *arguments.Prune, jsonOut bool) error {
	o := state.PruneOptions{Keep: p.Keep, DryRun: p.DryRun}
	if p.Age > 0 {
		o.Before = time.Now().Add(-p.Age)
	}
	// --flow names a flow file or directory, as for the other runs
	// commands, or else a flow by name.
	sf := *f
	if f.Flow != "" {
		if _, err := os.Stat(f.Flow); err != nil {
			o.Flow, sf.Flow = f.Flow, ""
		}
	}
	st, name, err := openStateOf(s, &sf)
	if err != nil {
		return err
	}
	defer st.Close()
	if name != "" {
		o.Flow = name
	}
	res, err := st.Prune(context.Background(), o)
	if err != nil {
		return failf("Cannot prune the runs", "%s.", strings.TrimRight(err.Error(), "."))
	}
	if jsonOut {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{
			"dry_run": p.DryRun, "runs": res.Runs, "step_results": res.Steps, "events": res.Events,
			"approvals": res.Approvals, "log_bytes": res.LogBytes, "blobs": res.Blobs, "blob_bytes": res.BlobBytes,
		})
	}
	verb := "Pruned"
	if p.DryRun {
		verb = "Would prune"
	}
	fmt.Fprintf(s.out, "%s %s (%s, %s, %s, %s of logs, %s of %s).\n", verb,
		views.Plural(res.Runs, "run", "runs"), views.Plural(res.Steps, "step result", "step results"),
		views.Plural(res.Events, "event", "events"), views.Plural(res.Approvals, "approval", "approvals"),
		byteSize(res.LogBytes), views.Plural(res.Blobs, "blob file", "blob files"), byteSize(res.BlobBytes))
	if p.DryRun {
		fmt.Fprintln(s.out, "Nothing was deleted (--dry-run).")
	}
	return nil
}

// byteSize is a size for people: 512 B, 3.1 KiB, 2.0 MiB.
func byteSize(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return strconv.FormatInt(n, 10) + " B"
	case n < k*k:
		return strconv.FormatFloat(float64(n)/k, 'f', 1, 64) + " KiB"
	case n < k*k*k:
		return strconv.FormatFloat(float64(n)/(k*k), 'f', 1, 64) + " MiB"
	}
	return strconv.FormatFloat(float64(n)/(k*k*k), 'f', 1, 64) + " GiB"
}
