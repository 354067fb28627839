package state

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// saltFlow is the memory row the cache salt is kept under: no flow can
// have the name (flow names are identifiers), so no flow's memory holds
// it, and it lives as long as the state, on SQLite and PostgreSQL alike,
// without a table of its own.
const saltFlow, saltName = "flowctl cache", "salt"

// CacheSalt returns the state's cache salt: 32 random bytes, made the
// first time any process asks and kept in the state. The runtime keys the
// cached results of steps with a sensitive input by an HMAC under it, so
// that whoever holds a copy of the state cannot test guesses of a secret
// by computing its cache key. Concurrent first calls agree: the salt is
// made inside one memory update, which no other update interleaves with.
func (s *Store) CacheSalt() ([]byte, error) {
	var salt []byte
	err := s.UpdateMemory(saltFlow, "", func(stored map[string]json.RawMessage) (map[string]json.RawMessage, error) {
		var text string
		if raw, ok := stored[saltName]; ok && json.Unmarshal(raw, &text) == nil {
			if b, err := hex.DecodeString(text); err == nil && len(b) == 32 {
				salt = b
				return nil, nil
			}
		}
		salt = make([]byte, 32)
		if _, err := rand.Read(salt); err != nil {
			return nil, err
		}
		raw, _ := json.Marshal(hex.EncodeToString(salt))
		return map[string]json.RawMessage{saltName: raw}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the cache salt: %w", err)
	}
	return salt, nil
}
