package state

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
)

// lookupsPerQuery is how many cache lookups one query answers at most.
const lookupsPerQuery = 64

// Cache lookups are answered in batches. A for_each step looks the cache
// up once for each of its instances, hundreds at once when its block runs
// in the sandbox, and one query per lookup cost more than the block's
// call: in SQLite each query is a read transaction that reads its pages
// again after every commit of the writer (and, with more lookups than idle
// connections, opened a connection, read the schema and prepared the
// statement again); in PostgreSQL each is a round trip. So one lookup at a
// time is the leader: it takes every lookup waiting (up to
// lookupsPerQuery), answers them with one query, and hands the lead to the
// first lookup that arrived meanwhile. A lookup that arrives while none is
// under way leads at once: alone, a lookup costs one query, as before.
type lookups struct {
	mu      sync.Mutex
	busy    bool      // a leader is querying
	waiting []*lookup // the lookups for the next query, in arrival order

	one, many *sql.Stmt // one hash; lookupsPerQuery hashes
}

// A lookup is one CacheGet waiting for its answer.
type lookup struct {
	hash  int64
	key   string
	out   []byte // the stored outputs (a blob reference too)
	found bool
	err   error
	// done is closed when the lookup is answered, or when it is to lead.
	done chan struct{}
	lead bool
}

const cacheGetSQL = `SELECT hash, key, outputs FROM cache WHERE hash `

func (l *lookups) prepare(ctx context.Context, db *sqlDB) error {
	var err error
	if l.one, err = db.PrepareContext(ctx, cacheGetSQL+`= ?`); err != nil {
		return err
	}
	in := `IN (` + strings.TrimSuffix(strings.Repeat("?, ", lookupsPerQuery), ", ") + `)`
	if l.many, err = db.PrepareContext(ctx, cacheGetSQL+in); err != nil {
		l.one.Close()
		return err
	}
	return nil
}

func (l *lookups) close() error {
	err := l.one.Close()
	if err2 := l.many.Close(); err == nil {
		err = err2
	}
	return err
}

// get returns the stored outputs of key and whether there are any, asking
// the database with read (Store.waitRead) in a batch with the lookups that
// wait beside it.
func (l *lookups) get(key string, read func(func() error) error) ([]byte, bool, error) {
	me := &lookup{hash: cacheHash(key), key: key, done: make(chan struct{})}
	l.mu.Lock()
	l.waiting = append(l.waiting, me)
	leads := !l.busy
	l.busy = true
	l.mu.Unlock()
	if !leads {
		<-me.done
		if !me.lead {
			return me.out, me.found, me.err
		}
	}

	l.mu.Lock()
	n := min(len(l.waiting), lookupsPerQuery)
	batch := l.waiting[:n:n]
	l.waiting = l.waiting[n:]
	l.mu.Unlock()

	err := read(func() error { return l.query(batch) })
	for _, w := range batch {
		if err != nil {
			w.out, w.found, w.err = nil, false, err
		}
	}

	l.mu.Lock()
	if len(l.waiting) > 0 {
		next := l.waiting[0]
		next.lead = true
		close(next.done)
	} else {
		l.busy = false
		l.waiting = nil
	}
	l.mu.Unlock()
	for _, w := range batch {
		if w != me {
			close(w.done)
		}
	}
	return me.out, me.found, me.err
}

// query answers a batch with one query (padding the list of hashes with
// its first one), or with the one-hash statement when it is alone.
func (l *lookups) query(batch []*lookup) error {
	ctx := context.Background()
	var rows *sql.Rows
	var err error
	if len(batch) == 1 {
		rows, err = l.one.QueryContext(ctx, batch[0].hash)
	} else {
		args := make([]any, lookupsPerQuery)
		for i := range args {
			args[i] = batch[min(i, len(batch)-1)].hash
		}
		rows, err = l.many.QueryContext(ctx, args...)
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	for _, w := range batch {
		w.out, w.found = nil, false
	}
	for rows.Next() {
		var hash int64
		var key string
		var out []byte
		if err := rows.Scan(&hash, &key, &out); err != nil {
			return err
		}
		// Two keys of one hash share its row (keyHash): each lookup takes
		// the row only when it holds its own key.
		for _, w := range batch {
			if w.hash == hash && w.key == key {
				w.out, w.found = out, true
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading the cache: %w", err)
	}
	return nil
}

// cacheGroupBits is how many of a cache hash's top bits name its key's
// group (cacheHash).
const cacheGroupBits = 20

// cacheHash is the hash the cache indexes an entry by. The runtime's keys
// are "GROUP.HASH", the group naming the block (its definition's
// fingerprint): the group's hash fills the top cacheGroupBits bits, so the
// entries of one block are one range of the index, which CacheGroup reads
// whole. The other bits come from the whole key; a key without a group
// hashes as keyHash does.
func cacheHash(key string) int64 {
	i := strings.IndexByte(key, '.')
	if i < 0 {
		return keyHash(key)
	}
	return int64(groupBits(key[:i]) | uint64(keyHash(key))&groupMask)
}

// groupMask covers the bits of a cache hash below its group's.
const groupMask = 1<<(64-cacheGroupBits) - 1

// groupBits is a group's hash in the top cacheGroupBits bits, the rest 0.
func groupBits(group string) uint64 { return uint64(keyHash(group)) &^ groupMask }

// A CacheGroup is what the cache held of one group of keys when it was
// read: the hashes of its entries. A key whose hash it does not hold was
// not stored then, so looking it up would be a miss; one stored since is
// missed too, which costs a run of the step, never a wrong result.
type CacheGroup struct {
	hashes map[int64]struct{}
}

// MayHold reports whether the cache may hold key: false only when key is
// of the group and was not stored when the group was read.
func (g *CacheGroup) MayHold(key string) bool {
	if g == nil {
		return true
	}
	_, ok := g.hashes[cacheHash(key)]
	return ok
}

// CacheGroup reads the hashes of the entries of group (keys "GROUP.…"),
// with one range read of the cache's index, when there are at most limit;
// when there are more it returns nil, which may hold any key. A for_each
// step reads its block's group before its instances look the cache up,
// and then looks up only the keys the group may hold: the first run of a
// block new or changed, over 100,000 items, looks up nothing.
func (s *Store) CacheGroup(group string, limit int) (*CacheGroup, error) {
	g := groupBits(group)
	lo, hi := int64(g), int64(g|groupMask)
	ctx := context.Background()
	out := &CacheGroup{hashes: map[int64]struct{}{}}
	err := s.waitRead(ctx, func() error {
		clear(out.hashes)
		rows, err := s.db.QueryContext(ctx, `SELECT hash FROM cache WHERE hash BETWEEN ? AND ? LIMIT ?`, lo, hi, limit+1)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var h int64
			if err := rows.Scan(&h); err != nil {
				return err
			}
			out.hashes[h] = struct{}{}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("reading the cache: %w", err)
	}
	if len(out.hashes) > limit {
		return nil, nil
	}
	return out, nil
}
