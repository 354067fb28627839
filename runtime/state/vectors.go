package state

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// VectorCache keeps the embedding vectors of one model in the state
// database, for registry search (package blocks/index, whose VectorCache
// interface it implements). Keys are the caller's. It is safe for
// concurrent use.
type VectorCache struct {
	s     *Store
	model string
}

// Vectors returns the vector cache of model. The vectors of different
// models are kept apart, even under the same key.
func (s *Store) Vectors(model string) *VectorCache {
	return &VectorCache{s: s, model: model}
}

// Get returns the vector stored under key. A vector that cannot be read
// (a closed store, a damaged row) counts as missing: the caller computes
// it again.
func (c *VectorCache) Get(key string) ([]float32, bool) {
	v, ok, err := c.Lookup(key)
	return v, ok && err == nil
}

// Lookup is Get with the error.
func (c *VectorCache) Lookup(key string) ([]float32, bool, error) {
	var blob []byte
	err := c.s.db.QueryRowContext(context.Background(),
		`SELECT vector FROM vectors WHERE model = ? AND key = ?`, c.model, key).Scan(&blob)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("reading a vector of model %s: %w", c.model, err)
	}
	v, err := decodeVector(blob)
	if err != nil {
		return nil, false, fmt.Errorf("reading a vector of model %s: %w", c.model, err)
	}
	return v, true, nil
}

// Put stores v under key, replacing what was there, and returns once it
// is committed.
func (c *VectorCache) Put(key string, v []float32) error {
	if len(v) == 0 {
		return fmt.Errorf("storing a vector of model %s: the vector is empty", c.model)
	}
	blob := encodeVector(v)
	_, err := c.s.w.do(func(ctx context.Context, st *writerStmts) error {
		_, err := st.upsertVector.ExecContext(ctx, c.model, key, blob, time.Now().UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("storing a vector of model %s: %w", c.model, err)
	}
	return nil
}

// Len is how many vectors of the model are stored.
func (c *VectorCache) Len() (int, error) {
	var n int
	err := c.s.db.QueryRowContext(context.Background(), `SELECT count(*) FROM vectors WHERE model = ?`, c.model).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("counting the vectors of model %s: %w", c.model, err)
	}
	return n, nil
}

const upsertVectorSQL = `
INSERT INTO vectors (model, key, vector, stored_at)
VALUES (?, ?, ?, ?)
ON CONFLICT (model, key) DO UPDATE SET
	vector = excluded.vector,
	stored_at = excluded.stored_at`

// encodeVector is v as stored: little-endian float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector is the inverse of encodeVector.
func decodeVector(b []byte) ([]float32, error) {
	if len(b) == 0 || len(b)%4 != 0 {
		return nil, fmt.Errorf("a stored vector of %d bytes is not a list of float32s", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}
