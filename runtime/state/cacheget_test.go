package state

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestCacheLookupsTogether looks up many keys at once, so that they are
// answered in batches: each gets its own entry, a miss, or an entry whose
// outputs are null, never another key's.
func TestCacheLookupsTogether(t *testing.T) {
	s := openStore(t)
	const n = 300
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			s.CachePut(fmt.Sprintf("g.k%d", i), "f", "s", json.RawMessage(fmt.Sprintf(`{"i": %d}`, i)))
		case 1:
			s.CachePut(fmt.Sprintf("g.k%d", i), "f", "s", nil)
		}
	}
	flush(t, s)
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Go(func() {
			v, ok, err := s.CacheGet(fmt.Sprintf("g.k%d", i))
			want := map[int]string{0: fmt.Sprintf(`{"i": %d}`, i), 1: "", 2: ""}[i%3]
			if err != nil || ok != (i%3 != 2) || string(v) != want {
				errs <- fmt.Sprintf("CacheGet(g.k%d) = %s, %v, %v; want %s, %v", i, v, ok, err, want, i%3 != 2)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestCacheGroup checks that a group holds the hashes of its own keys and
// none of another group's, and is nil when larger than its limit.
func TestCacheGroup(t *testing.T) {
	s := openStore(t)
	for i := 0; i < 10; i++ {
		s.CachePut(fmt.Sprintf("a1b2.%d", i), "f", "s", json.RawMessage(`1`))
		s.CachePut(fmt.Sprintf("c3d4.%d", i), "f", "s", json.RawMessage(`2`))
	}
	flush(t, s)
	g, err := s.CacheGroup("a1b2", 10)
	if err != nil || g == nil {
		t.Fatalf("CacheGroup = %v, %v", g, err)
	}
	if len(g.hashes) != 10 {
		t.Errorf("the group holds %d hashes, want 10", len(g.hashes))
	}
	for i := 0; i < 10; i++ {
		if !g.MayHold(fmt.Sprintf("a1b2.%d", i)) {
			t.Errorf("the group does not hold a1b2.%d", i)
		}
		if g.MayHold(fmt.Sprintf("c3d4.%d", i)) || g.MayHold(fmt.Sprintf("a1b2.%d", i+10)) {
			t.Errorf("the group holds a key it was not given (%d)", i)
		}
	}
	if g, err := s.CacheGroup("a1b2", 9); g != nil || err != nil {
		t.Errorf("CacheGroup over its limit = %v, %v; want nil", g, err)
	}
	if g, err := s.CacheGroup("e5f6", 9); err != nil || g == nil || len(g.hashes) != 0 {
		t.Errorf("CacheGroup of an empty group = %v, %v", g, err)
	}
	var none *CacheGroup
	if !none.MayHold("a1b2.0") {
		t.Error("a nil group must hold every key")
	}
	// The group's bits: both keys of one group share the top bits, and a
	// key without a group hashes as before.
	const low = 64 - cacheGroupBits
	if cacheHash("a1b2.x")>>low != cacheHash("a1b2.y")>>low || cacheHash("k") != keyHash("k") {
		t.Error("cacheHash does not keep a group's keys in one range")
	}
}

// TestCloseForExit: what a store wrote before CloseForExit is in the state
// for the next process, and the SQLite WAL it leaves is empty.
func TestCloseForExit(t *testing.T) {
	dir := t.TempDir()
	s, err := openAny(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	createRun(t, s, "r1", "f", time.Unix(100, 0))
	s.CachePut("g.k", "f", "s", json.RawMessage(`{"n": 1}`))
	if err := s.CloseForExit(); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.db.b.(sqliteBackend); ok {
		if fi, err := os.Stat(filepath.Join(dir, FileName+"-wal")); err == nil && fi.Size() != 0 {
			t.Errorf("the WAL left has %d bytes, want none", fi.Size())
		}
	}
	s2 := openStoreIn(t, dir)
	if _, err := s2.Run("r1"); err != nil {
		t.Errorf("the run written before CloseForExit: %v", err)
	}
	if v, ok, err := s2.CacheGet("g.k"); string(v) != `{"n": 1}` || !ok || err != nil {
		t.Errorf("CacheGet after CloseForExit = %s, %v, %v", v, ok, err)
	}
}
