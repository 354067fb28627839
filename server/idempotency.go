package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"

	"github.com/flowctl/flowctl/compiler"
)

// An Idempotency-Key (POST /v1/flows/{flow}/runs) is scoped to the flow and
// the namespace of the run it starts, and kept in the state with a digest
// of the request's inputs until it expires (Options.IdempotencyExpiry): the
// same key with the same inputs answers with the run it started, with
// other inputs 422. The state decides which of two requests with one key
// claims it, also when they reach two servers of one state.

// DefaultIdempotencyExpiry is how long an Idempotency-Key is kept.
const DefaultIdempotencyExpiry = 24 * time.Hour

// requestDigest is the digest of a start request's inputs: their JSON
// values in a canonical form (object keys sorted, numbers as written),
// but for sensitive inputs, of which only the name counts (a digest of a
// secret kept in the state could be checked against guesses).
func requestDigest(prog *compiler.Program, inputs map[string]json.RawMessage) string {
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, name := range names {
		h.Write([]byte(name))
		h.Write([]byte{0})
		if in := prog.InputsByName[name]; in == nil || !in.Sensitive {
			h.Write(canonicalJSON(inputs[name]))
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// canonicalJSON is a JSON value with its objects' keys sorted and no
// spaces; numbers keep their digits. A value that is not JSON is as it is
// (the request is refused before its digest counts).
func canonicalJSON(raw json.RawMessage) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	b, err := json.Marshal(v) // maps are written with sorted keys
	if err != nil {
		return raw
	}
	return b
}

// pruneKeys deletes the expired Idempotency-Keys, hourly, until the
// server closes.
func (s *Server) pruneKeys() {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		ctx, cancel := context.WithTimeout(s.ctx, time.Minute)
		s.store.PruneIdempotencyKeys(ctx, time.Now().Add(-s.opts.IdempotencyExpiry))
		cancel()
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
	}
}
