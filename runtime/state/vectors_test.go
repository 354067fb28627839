package state

import (
	"database/sql"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/blocks/index"
)

var _ index.VectorCache = (*VectorCache)(nil)

func TestVectors(t *testing.T) {
	s := openStore(t)
	c := s.Vectors("m1")
	if v, ok := c.Get("k"); ok || v != nil {
		t.Errorf("Get of a missing key = %v, %v", v, ok)
	}
	want := []float32{0, 1, -2.5, float32(math.Pi), math.MaxFloat32, math.SmallestNonzeroFloat32}
	if err := c.Put("k", want); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Get("k"); !ok || !slices.Equal(got, want) {
		t.Errorf("Get = %v, %v; want %v", got, ok, want)
	}

	// The same key under another model is another vector.
	if _, ok := s.Vectors("m2").Get("k"); ok {
		t.Error("model m2 sees the vector of m1")
	}
	if err := s.Vectors("m2").Put("k", []float32{9}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Get("k"); !slices.Equal(got, want) {
		t.Errorf("m1's vector became %v after m2 stored its own", got)
	}

	// Put replaces.
	if err := c.Put("k", []float32{1, 2}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Get("k"); !slices.Equal(got, []float32{1, 2}) {
		t.Errorf("Get after a second Put = %v", got)
	}
	if n, err := c.Len(); err != nil || n != 1 {
		t.Errorf("Len = %d, %v; want 1", n, err)
	}

	if err := c.Put("empty", nil); err == nil {
		t.Error("Put of an empty vector succeeded")
	}
}

func TestVectorsPersist(t *testing.T) {
	dir := t.TempDir()
	s, err := openAny(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Vectors("m").Put("k", []float32{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStoreIn(t, dir)
	if got, ok := s.Vectors("m").Get("k"); !ok || !slices.Equal(got, []float32{1, 2, 3}) {
		t.Errorf("after reopening: Get = %v, %v", got, ok)
	}
}

func TestVectorsDamagedRow(t *testing.T) {
	s := openSQLiteIn(t, t.TempDir())
	if _, err := s.db.Exec(`INSERT INTO vectors (model, key, vector, stored_at) VALUES ('m', 'k', x'010203', 0)`); err != nil {
		t.Fatal(err)
	}
	c := s.Vectors("m")
	if v, ok := c.Get("k"); ok {
		t.Errorf("Get of a 3-byte vector = %v, true", v)
	}
	if _, _, err := c.Lookup("k"); err == nil || !strings.Contains(err.Error(), "not a list of float32s") {
		t.Errorf("Lookup error = %v", err)
	}
}

func TestVectorsConcurrent(t *testing.T) {
	s := openStore(t)
	c := s.Vectors("m")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 10 {
				key := string(rune('a'+i)) + string(rune('0'+j))
				if err := c.Put(key, []float32{float32(i), float32(j)}); err != nil {
					t.Error(err)
				}
				if v, ok := c.Get(key); !ok || v[0] != float32(i) || v[1] != float32(j) {
					t.Errorf("Get(%s) = %v, %v", key, v, ok)
				}
			}
		})
	}
	wg.Wait()
	if n, err := c.Len(); err != nil || n != 80 {
		t.Errorf("Len = %d, %v; want 80", n, err)
	}
}

// TestMigrateVersion1 checks that a database of schema version 1 gains the
// vectors table and keeps its data.
func TestMigrateVersion1(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", dsn(filepath.Join(dir, FileName)))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		migrations[0],
		`INSERT INTO memory (flow, namespace, name, value, updated_at) VALUES ('f', 'default', 'm', '"v"', 1)`,
		`PRAGMA user_version = 1`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s := openSQLiteIn(t, dir)
	if m, err := s.Memory("f", ""); err != nil || string(m["m"]) != `"v"` {
		t.Errorf("Memory after the migration = %v, %v", m, err)
	}
	if err := s.Vectors("m").Put("k", []float32{1}); err != nil {
		t.Errorf("Put after the migration: %v", err)
	}
}

func TestVectorsClosed(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.Vectors("m").Put("k", []float32{1}); err == nil {
		t.Error("Put on a closed store succeeded")
	}
	if _, ok := s.Vectors("m").Get("k"); ok {
		t.Error("Get on a closed store found a vector")
	}
}
