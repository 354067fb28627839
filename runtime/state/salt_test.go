package state

import (
	"bytes"
	"sync"
	"testing"
)

// TestCacheSalt: a state's cache salt is 32 random bytes made once and
// kept (concurrent first calls agree, a store opened again reads it);
// another state has another. The suite runs it on SQLite, and on
// PostgreSQL when pgtest.EnvURL is set.
func TestCacheSalt(t *testing.T) {
	dir := t.TempDir()
	s, err := openAny(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	salts := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range salts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := s.CacheSalt()
			if err != nil {
				t.Error(err)
			}
			salts[i] = b
		}()
	}
	wg.Wait()
	for _, b := range salts {
		if len(b) != 32 || !bytes.Equal(b, salts[0]) {
			t.Fatalf("salts %x", salts)
		}
	}
	if bytes.Equal(salts[0], make([]byte, 32)) {
		t.Fatal("the salt is zeros")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := openAny(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if b, err := again.CacheSalt(); err != nil || !bytes.Equal(b, salts[0]) {
		t.Errorf("reopened: %x, %v; want %x", b, err, salts[0])
	}
	other := openStoreIn(t, t.TempDir())
	if b, err := other.CacheSalt(); err != nil || bytes.Equal(b, salts[0]) {
		t.Errorf("another state's salt: %x, %v", b, err)
	}
}
