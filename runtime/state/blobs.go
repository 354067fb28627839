package state

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Values larger than BlobThreshold — the outputs of a step that fetched a
// large document, a run's inputs from a big file — are kept in files of
// their own under blobs/ in the state directory, named by the SHA-256 of
// their content, and the database holds a reference: "blob:sha256-HEX".
// SQLite would copy such a value twice on its way in (binding, then
// building the row) and once more into the write-ahead log; a file costs
// one write. Readers get the value back whole; identical values share a
// file.
const BlobThreshold = 1 << 20

// blobPrefix starts a reference. No JSON text starts with "b".
const blobPrefix = "blob:"

// blobPath is where the blob of a reference lives.
func blobPath(dir, ref string) (string, error) {
	name, ok := bytes.CutPrefix([]byte(ref), []byte(blobPrefix+"sha256-"))
	if !ok || len(name) != 64 {
		return "", fmt.Errorf("%q is not a blob reference", ref)
	}
	if _, err := hex.DecodeString(string(name)); err != nil {
		return "", fmt.Errorf("%q is not a blob reference", ref)
	}
	return filepath.Join(dir, "blobs", string(name[:2]), string(name)), nil
}

// storeBlob keeps v in a blob file when it is larger than BlobThreshold and
// returns what the database holds instead: v itself, or a reference. A
// store without a directory (PostgreSQL) keeps every value in its row.
func storeBlob(dir string, v json.RawMessage) (json.RawMessage, error) {
	if len(v) <= BlobThreshold || dir == "" {
		return v, nil
	}
	sum := sha256.Sum256(v)
	ref := blobPrefix + "sha256-" + hex.EncodeToString(sum[:])
	path, _ := blobPath(dir, ref)
	if info, err := os.Stat(path); err == nil && info.Size() == int64(len(v)) {
		// The same content is there already. Touched, so that a prune
		// under way does not take it for unused (prune.go).
		now := time.Now()
		os.Chtimes(path, now, now)
		return json.RawMessage(ref), nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("storing a value of %d bytes: %w", len(v), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("storing a value of %d bytes: %w", len(v), err)
	}
	_, err = tmp.Write(v)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("storing a value of %d bytes: %w", len(v), err)
	}
	return json.RawMessage(ref), nil
}

// loadBlob returns the value a database column holds: v itself, or the
// content of the blob it refers to.
func loadBlob(dir string, v json.RawMessage) (json.RawMessage, error) {
	if !bytes.HasPrefix(v, []byte(blobPrefix)) {
		return v, nil
	}
	path, err := blobPath(dir, string(v))
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading a stored value: %w", err)
	}
	return b, nil
}
