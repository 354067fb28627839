package state

import (
	"bytes"
	"errors"
	"testing"
)

func TestPayloads(t *testing.T) {
	dir := t.TempDir()
	s := openStoreIn(t, dir)
	data := bytes.Repeat([]byte("x"), 3<<20)
	ref, err := s.PutPayload(data)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := s.PutPayload(data); err != nil || again != ref {
		t.Errorf("the same data again: %q, %v; want %q", again, err, ref)
	}
	// Another process reads it.
	got, err := openStoreIn(t, dir).Payload(ref)
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("Payload = %d bytes, %v", len(got), err)
	}
	if _, err := s.Payload("sha256-00"); !errors.Is(err, ErrPayloadNotFound) {
		t.Errorf("an unknown reference: %v", err)
	}
}
