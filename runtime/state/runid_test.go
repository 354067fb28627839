package state

import (
	"strings"
	"testing"
	"time"
)

func TestNewRunID(t *testing.T) {
	const n = 10000
	seen := make(map[string]bool, n)
	prev := ""
	for range n {
		id := NewRunID()
		if len(id) != runIDLen {
			t.Fatalf("NewRunID() = %q: %d characters, want %d", id, len(id), runIDLen)
		}
		if strings.Trim(id, crockford) != "" {
			t.Fatalf("NewRunID() = %q: not lower-case Crockford base32", id)
		}
		if seen[id] {
			t.Fatalf("NewRunID() returned %q twice", id)
		}
		seen[id] = true
		if id <= prev {
			t.Fatalf("NewRunID() = %q after %q: not increasing", id, prev)
		}
		prev = id
	}

	// The time prefix: an ID made later sorts after, whatever the random
	// part, and the prefix encodes the time in milliseconds.
	a := NewRunID()
	time.Sleep(2 * time.Millisecond)
	b := NewRunID()
	if a[:timeChars] >= b[:timeChars] {
		t.Errorf("time prefixes %q then %q do not increase", a[:timeChars], b[:timeChars])
	}
	var ms int64
	for _, c := range b[:timeChars] {
		ms = ms<<5 | int64(strings.IndexRune(crockford, c))
	}
	if d := time.Since(time.UnixMilli(ms)); d < 0 || d > time.Minute {
		t.Errorf("the time prefix of %q decodes to %v, %v ago", b, time.UnixMilli(ms), d)
	}
}

// TestNewRunIDConcurrent: IDs made by concurrent goroutines are unique
// (run with -race).
func TestNewRunIDConcurrent(t *testing.T) {
	ids := make(chan string, 8*1000)
	done := make(chan struct{})
	for range 8 {
		go func() {
			for range 1000 {
				ids <- NewRunID()
			}
			done <- struct{}{}
		}()
	}
	for range 8 {
		<-done
	}
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Fatalf("%q made twice", id)
		}
		seen[id] = true
	}
}
