package state

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// ErrPayloadNotFound is returned (wrapped) by Payload for a reference the
// state does not hold.
var ErrPayloadNotFound = errors.New("payload not found")

// PutPayload keeps data and returns its reference, "sha256-" and the hex
// SHA-256 of data: the temporal engine keeps large payloads out of
// workflow histories this way. Equal data share one row.
func (s *Store) PutPayload(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	ref := "sha256-" + hex.EncodeToString(sum[:])
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		_, err := st.insertPayload.ExecContext(ctx, ref, data, time.Now().UnixNano())
		return err
	})
	if err != nil {
		return "", fmt.Errorf("storing a payload of %d bytes: %w", len(data), err)
	}
	return ref, nil
}

// Payload returns the data PutPayload kept under ref.
func (s *Store) Payload(ref string) ([]byte, error) {
	var data []byte
	err := s.db.scanRow(context.Background(), `SELECT data FROM payloads WHERE ref = ?`, []any{ref}, &data)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("payload %s: %w in %s", ref, ErrPayloadNotFound, s.path)
	case err != nil:
		return nil, fmt.Errorf("reading payload %s: %w", ref, err)
	}
	return data, nil
}

const insertPayloadSQL = `INSERT INTO payloads (ref, data, stored_at) VALUES (?, ?, ?) ON CONFLICT (ref) DO NOTHING`
