package state

import (
	"context"
	"log/slog"
	"time"
)

// RetentionEvery is how often serve --retention prunes the state.
const RetentionEvery = time.Hour

// Retain is serve --retention: it deletes the finished runs that started
// longer ago than age, at once and then every interval, until ctx ends,
// and logs what each pruning freed (a run's step results, events, logs,
// approvals and the blob files nothing refers to any more).
func Retain(ctx context.Context, st *Store, age, every time.Duration, log *slog.Logger) {
	for {
		res, err := st.Prune(ctx, PruneOptions{Before: time.Now().Add(-age)})
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			log.Warn("pruning the runs older than the retention failed; tried again in an hour", slog.String("error", err.Error()))
		default:
			log.Info("runs pruned", slog.Duration("retention", age), slog.Int("runs", res.Runs),
				slog.Int("step_results", res.Steps), slog.Int("events", res.Events), slog.Int("approvals", res.Approvals),
				slog.Int64("log_bytes", res.LogBytes), slog.Int("blobs", res.Blobs), slog.Int64("blob_bytes", res.BlobBytes))
		}
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
