package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// An IdempotencyKey is an Idempotency-Key of flowctl serve: scoped to the
// flow and namespace of the run it started, with a digest of the request
// that came with it (Request), so that the same key sent again with
// another request can be refused.
type IdempotencyKey struct {
	Flow, Namespace, Key string
	Request              string // a digest of the request; compared, never read
	RunID                string
	CreatedAt            time.Time
}

// ClaimIdempotencyKey records k (its RunID the run the caller is about to
// start, CreatedAt now when zero) unless the key is recorded already in
// k's flow and namespace since expiry; a key recorded before expiry is
// replaced. It returns nil when k was recorded, and the key as it was
// recorded otherwise: the caller starts no run then, and answers with that
// key's run, or refuses a request other than the one recorded. It returns
// once committed, so that of two processes claiming one key at once
// exactly one records it.
func (s *Store) ClaimIdempotencyKey(k IdempotencyKey, expiry time.Time) (*IdempotencyKey, error) {
	k.Namespace = namespace(k.Namespace)
	if k.CreatedAt.IsZero() {
		k.CreatedAt = time.Now()
	}
	claimed := false
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		res, err := st.insertIdempotency.ExecContext(ctx, k.Flow, k.Namespace, k.Key, k.Request, k.RunID,
			k.CreatedAt.UnixNano(), expiry.UnixNano())
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		claimed = n > 0
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("recording an Idempotency-Key: %w", err)
	}
	if claimed {
		return nil, nil
	}
	got := IdempotencyKey{Flow: k.Flow, Namespace: k.Namespace, Key: k.Key}
	var created int64
	err = s.db.QueryRow(`SELECT request, run_id, created_at FROM idempotency_keys
		WHERE flow = ? AND namespace = ? AND key = ?`, k.Flow, k.Namespace, k.Key).Scan(&got.Request, &got.RunID, &created)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// Pruned since: claim it again.
		return s.ClaimIdempotencyKey(k, expiry)
	case err != nil:
		return nil, fmt.Errorf("reading an Idempotency-Key: %w", err)
	}
	got.CreatedAt = time.Unix(0, created)
	return &got, nil
}

// IdempotencyKeyOf is the key recorded in flow and namespace ns since
// expiry, nil when there is none.
func (s *Store) IdempotencyKeyOf(flow, ns, key string, expiry time.Time) (*IdempotencyKey, error) {
	got := IdempotencyKey{Flow: flow, Namespace: namespace(ns), Key: key}
	var created int64
	err := s.db.QueryRow(`SELECT request, run_id, created_at FROM idempotency_keys
		WHERE flow = ? AND namespace = ? AND key = ? AND created_at >= ?`, flow, got.Namespace, key, expiry.UnixNano()).Scan(&got.Request, &got.RunID, &created)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading an Idempotency-Key: %w", err)
	}
	got.CreatedAt = time.Unix(0, created)
	return &got, nil
}

// PruneIdempotencyKeys deletes the keys recorded before expiry, and
// returns how many it deleted.
func (s *Store) PruneIdempotencyKeys(ctx context.Context, expiry time.Time) (int64, error) {
	res, err := s.db.DB.ExecContext(ctx, s.db.b.bind(`DELETE FROM idempotency_keys WHERE created_at < ?`), expiry.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("deleting expired Idempotency-Keys: %w", err)
	}
	return res.RowsAffected()
}

// ReleaseIdempotencyKey deletes a key claimed for runID, for a run that
// did not start after all (another run's claim of the key stays).
func (s *Store) ReleaseIdempotencyKey(k IdempotencyKey) error {
	_, err := s.db.DB.ExecContext(context.Background(), s.db.b.bind(`DELETE FROM idempotency_keys
		WHERE flow = ? AND namespace = ? AND key = ? AND run_id = ?`), k.Flow, namespace(k.Namespace), k.Key, k.RunID)
	if err != nil {
		return fmt.Errorf("releasing an Idempotency-Key: %w", err)
	}
	return nil
}

// insertIdempotencySQL records a key, or replaces one that expired: no
// row changes when the key is recorded and has not expired.
const insertIdempotencySQL = `
INSERT INTO idempotency_keys (flow, namespace, key, request, run_id, created_at) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (flow, namespace, key) DO UPDATE SET
	request = excluded.request,
	run_id = excluded.run_id,
	created_at = excluded.created_at
WHERE idempotency_keys.created_at < ?`
