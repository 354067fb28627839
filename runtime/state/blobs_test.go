package state

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBlobs: values over BlobThreshold are kept in files of their own and
// read back whole; the database holds references; equal values share a
// file.
func TestBlobs(t *testing.T) {
	dir := t.TempDir()
	s := openSQLiteIn(t, dir)
	big := json.RawMessage(`{"type":"string","value":"` + strings.Repeat("x", 3<<20) + `"}`)
	small := json.RawMessage(`{"type":"number","value":1}`)
	r := createRun(t, s, "", "f", time.Time{})
	s.RecordStep(&StepResult{RunID: r.ID, Step: "big", Status: "ok", Outputs: big})
	s.RecordStep(&StepResult{RunID: r.ID, Step: "small", Status: "ok", Outputs: small})
	s.CachePut("k1", "f", "big", big)
	if err := s.FinishRun(&Run{ID: r.ID, Status: "ok", Outputs: big}); err != nil {
		t.Fatal(err)
	}
	steps, err := s.Steps(r.ID)
	if err != nil || len(steps) != 2 {
		t.Fatalf("Steps = %d, %v", len(steps), err)
	}
	for _, st := range steps {
		want := map[string]json.RawMessage{"big": big, "small": small}[st.Step]
		if !bytes.Equal(st.Outputs, want) {
			t.Errorf("step %s: %d bytes back, want %d", st.Step, len(st.Outputs), len(want))
		}
	}
	if got, ok, err := s.CacheGet("k1"); err != nil || !ok || !bytes.Equal(got, big) {
		t.Errorf("CacheGet: %d bytes, %v, %v", len(got), ok, err)
	}
	if run, err := s.Run(r.ID); err != nil || !bytes.Equal(run.Outputs, big) {
		t.Errorf("the run's outputs: %v", err)
	}
	// One file for the three copies of the same value; the database
	// stays small.
	var files []string
	filepath.WalkDir(filepath.Join(dir, "blobs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if len(files) != 1 {
		t.Errorf("blob files: %v", files)
	}
	if info, err := os.Stat(filepath.Join(dir, FileName)); err != nil || info.Size() > 1<<20 {
		t.Errorf("the database is %d bytes (%v)", info.Size(), err)
	}
	// A blob that is gone: the cache misses, the steps say so.
	os.Remove(files[0])
	if _, ok, err := s.CacheGet("k1"); ok || err != nil {
		t.Errorf("CacheGet of a removed blob: %v, %v", ok, err)
	}
	if _, err := s.Steps(r.ID); err == nil || !strings.Contains(err.Error(), "the outputs of step big") {
		t.Errorf("Steps with a removed blob: %v", err)
	}
}
