package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/flowctl/flowctl/blocks"
)

// Collections: the vector collections of the state (blocks.Collections).
//
// Both backends keep a collection's items in collection_items, one row
// an item, written in the writer's transactions: an upsert with its
// replace, or a delete, commits whole or not at all, so a search never
// sees half of a document. Each change takes the next revision of its
// collection (collections.rev) and leaves the rows it removed as
// tombstones (live = 0) of that revision.
//
// The embedded state (SQLite) searches an HNSW graph in memory
// (collections_hnsw.go), kept in step with the rows by replaying the
// revisions it has not seen, and saved in the state directory now and
// then: a graph saved before a crash is brought up to date from the rows
// when the collection is opened again. PostgreSQL searches the rows
// themselves, with pgvector (collections_pg.go).

// collectionsMigration is the index in migrations of the one that makes
// the collections' tables; postgresOnly adds pgvector's column to it.
const collectionsMigration = 16

// postgresOnly are statements that PostgreSQL runs after the migration of
// the same index: pgvector's extension and the column of the vectors
// (a vector without dimensions: each collection has an HNSW index of its
// own on the rows of its dimensions, made when it is first opened). The
// extension may live in a schema that is not on the search path (that of
// another flowctl state in the same database): its types and operators
// are named with their schema.
var postgresOnly = map[int]string{
	collectionsMigration: `
CREATE EXTENSION IF NOT EXISTS vector;
DO $$
DECLARE s text;
BEGIN
	SELECT n.nspname INTO s FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector';
	EXECUTE format('ALTER TABLE collection_items ADD COLUMN embedding %I.vector', s);
END
$$;
`,
}

// maxCollectionItem bounds one item's text and metadata, as stored.
const maxCollectionItem = 1 << 20

// collectionSet holds the collections a store has opened.
type collectionSet struct {
	mu sync.Mutex
	m  map[string]*collection
}

// collection is an open collection of either backend.
type collection struct {
	s    *Store
	spec blocks.CollectionSpec
	// graph is the embedded state's index; nil for PostgreSQL.
	graph *hnswIndex
	// pgSchema is the quoted schema of pgvector's types and operators.
	pgSchema string
}

var _ blocks.Collections = (*Store)(nil)

// Collection opens the collection spec names, registering it on first
// use. A collection keeps the dimensions and distance it was made with:
// a spec that declares others is refused, since its vectors could not be
// compared with those stored.
func (s *Store) Collection(ctx context.Context, spec blocks.CollectionSpec) (blocks.Collection, error) {
	if spec.Dimensions < 1 {
		return nil, fmt.Errorf("collection %q: dimensions must be at least 1, not %d", spec.Name, spec.Dimensions)
	}
	if !slices.Contains(blocks.Distances, spec.Distance) {
		return nil, fmt.Errorf("collection %q: distance %q is not one of %s", spec.Name, spec.Distance, strings.Join(blocks.Distances, ", "))
	}
	s.colls.mu.Lock()
	defer s.colls.mu.Unlock()
	if c := s.colls.m[spec.Name]; c != nil {
		if c.spec != spec {
			return nil, specMismatch(spec, c.spec)
		}
		return c, nil
	}
	err := s.w.doCtx(ctx, func(ctx context.Context, st *writerStmts) error {
		_, err := st.conn.ExecContext(ctx, `INSERT INTO collections (name, dimensions, distance, rev) VALUES (?, ?, ?, 0)
ON CONFLICT (name) DO NOTHING`, spec.Name, spec.Dimensions, spec.Distance)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("opening collection %q: %w", spec.Name, err)
	}
	var kept blocks.CollectionSpec
	kept.Name = spec.Name
	if err := s.db.scanRow(ctx, `SELECT dimensions, distance FROM collections WHERE name = ?`, []any{spec.Name},
		&kept.Dimensions, &kept.Distance); err != nil {
		return nil, fmt.Errorf("opening collection %q: %w", spec.Name, err)
	}
	if kept != spec {
		return nil, specMismatch(spec, kept)
	}
	c := &collection{s: s, spec: spec}
	if s.postgres() {
		if err := s.db.scanRow(ctx, `SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`,
			nil, &c.pgSchema); err != nil {
			return nil, fmt.Errorf("opening collection %q: pgvector's extension is not in the database (flowctl state migrate installs it, once the server has pgvector): %w", spec.Name, err)
		}
		c.pgSchema = quoteIdent(c.pgSchema)
		if err := c.makePostgresIndex(ctx); err != nil {
			return nil, err
		}
	} else {
		g, err := openHNSW(ctx, c)
		if err != nil {
			return nil, err
		}
		c.graph = g
	}
	if s.colls.m == nil {
		s.colls.m = map[string]*collection{}
	}
	s.colls.m[spec.Name] = c
	return c, nil
}

func specMismatch(want, kept blocks.CollectionSpec) error {
	return fmt.Errorf("collection %q is kept in the state with %d dimensions and the %s distance, and the flow declares %d and %s: "+
		"its vectors cannot be compared with the new ones; give the collection another name, or delete it with flowctl state collections delete %s",
		want.Name, kept.Dimensions, kept.Distance, want.Dimensions, want.Distance, want.Name)
}

// DeleteCollection removes a collection and all its items.
func (s *Store) DeleteCollection(ctx context.Context, name string) error {
	s.colls.mu.Lock()
	defer s.colls.mu.Unlock()
	if c := s.colls.m[name]; c != nil && c.graph != nil {
		c.graph.remove()
	}
	delete(s.colls.m, name)
	err := s.w.doCtx(ctx, func(ctx context.Context, st *writerStmts) error {
		if _, err := st.conn.ExecContext(ctx, `DELETE FROM collection_items WHERE collection = ?`, name); err != nil {
			return err
		}
		_, err := st.conn.ExecContext(ctx, `DELETE FROM collections WHERE name = ?`, name)
		return err
	})
	if err != nil {
		return fmt.Errorf("deleting collection %q: %w", name, err)
	}
	if !s.postgres() {
		removeSnapshot(s, name)
	}
	return nil
}

// closeCollections saves the embedded graphs that changed since they
// were last saved.
func (s *Store) closeCollections() error {
	s.colls.mu.Lock()
	defer s.colls.mu.Unlock()
	var errs []error
	for _, c := range s.colls.m {
		if c.graph != nil {
			errs = append(errs, c.graph.save())
		}
	}
	return errors.Join(errs...)
}

func (s *Store) postgres() bool {
	_, ok := s.db.b.(postgresBackend)
	return ok
}

func (c *collection) Spec() blocks.CollectionSpec { return c.spec }

// check refuses a vector the collection cannot hold or compare.
func (c *collection) check(what string, v []float32) error {
	if len(v) != c.spec.Dimensions {
		return &blocks.DimensionError{Collection: c.spec.Name, What: what, Got: len(v), Want: c.spec.Dimensions}
	}
	zero := true
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("collection %q: %s has a value that is not a finite number", c.spec.Name, what)
		}
		if x != 0 {
			zero = false
		}
	}
	if zero && c.spec.Distance == blocks.DistanceCosine {
		return fmt.Errorf("collection %q: %s is all zeros, which has no direction to compare by the cosine distance", c.spec.Name, what)
	}
	return nil
}

// Upsert implements blocks.Collection.
func (c *collection) Upsert(ctx context.Context, items []blocks.VectorItem, replace blocks.Filter) error {
	type row struct {
		id, text, meta string
		vec            []float32
	}
	rows := make([]row, 0, len(items))
	seen := map[string]bool{}
	for _, it := range items {
		what := fmt.Sprintf("the vector of item %q", it.ID)
		if it.ID == "" {
			return fmt.Errorf("collection %q: an item has an empty id", c.spec.Name)
		}
		if seen[it.ID] {
			return fmt.Errorf("collection %q: the id %q is given twice", c.spec.Name, it.ID)
		}
		seen[it.ID] = true
		if err := c.check(what, it.Vector); err != nil {
			return err
		}
		meta, err := encodeMetadata(it.Metadata)
		if err != nil {
			return fmt.Errorf("collection %q: the metadata of item %q: %w", c.spec.Name, it.ID, err)
		}
		if len(it.Text)+len(meta) > maxCollectionItem {
			return fmt.Errorf("collection %q: item %q has %d bytes of text and metadata, more than the %d an item holds",
				c.spec.Name, it.ID, len(it.Text)+len(meta), maxCollectionItem)
		}
		rows = append(rows, row{it.ID, it.Text, meta, it.Vector})
	}
	if len(rows) == 0 && len(replace) == 0 {
		return nil
	}
	pg := c.s.postgres()
	err := c.s.w.doCtx(ctx, func(ctx context.Context, st *writerStmts) error {
		rev, err := nextRev(ctx, st, c.spec.Name)
		if err != nil {
			return err
		}
		if len(replace) > 0 {
			ids, err := matchingIDs(ctx, st.conn, pg, c.spec.Name, replace)
			if err != nil {
				return err
			}
			var gone []string
			for _, id := range ids {
				if !seen[id] {
					gone = append(gone, id)
				}
			}
			if err := tombstone(ctx, st, pg, c.spec.Name, rev, gone); err != nil {
				return err
			}
		}
		q := `INSERT INTO collection_items (collection, id, rev, live, text, metadata, vector) VALUES (?, ?, ?, 1, ?, ?, ?)
ON CONFLICT (collection, id) DO UPDATE SET rev = excluded.rev, live = 1, text = excluded.text,
	metadata = excluded.metadata, vector = excluded.vector`
		if pg {
			q = `INSERT INTO collection_items (collection, id, rev, live, text, metadata, embedding) VALUES (?, ?, ?, 1, ?, ?, ?::` + c.pgSchema + `.vector)
ON CONFLICT (collection, id) DO UPDATE SET rev = excluded.rev, live = 1, text = excluded.text,
	metadata = excluded.metadata, embedding = excluded.embedding`
		}
		stmt, err := st.conn.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, r := range rows {
			var v any = encodeVector(r.vec)
			if pg {
				v = vectorText(r.vec)
			}
			if _, err := stmt.ExecContext(ctx, c.spec.Name, r.id, rev, r.text, r.meta, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("upserting into collection %q: %w", c.spec.Name, err)
	}
	if c.graph != nil {
		return c.graph.sync(ctx)
	}
	return nil
}

// Delete implements blocks.Collection.
func (c *collection) Delete(ctx context.Context, ids []string, where blocks.Filter) (int, error) {
	if len(ids) == 0 && len(where) == 0 {
		return 0, nil
	}
	pg := c.s.postgres()
	var n int
	err := c.s.w.doCtx(ctx, func(ctx context.Context, st *writerStmts) error {
		n = 0
		gone := map[string]bool{}
		for _, id := range ids {
			var live int
			err := st.conn.QueryRowContext(ctx, `SELECT live FROM collection_items WHERE collection = ? AND id = ?`, c.spec.Name, id).Scan(&live)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if live == 1 {
				gone[id] = true
			}
		}
		if len(where) > 0 {
			matched, err := matchingIDs(ctx, st.conn, pg, c.spec.Name, where)
			if err != nil {
				return err
			}
			for _, id := range matched {
				gone[id] = true
			}
		}
		if len(gone) == 0 {
			return nil
		}
		rev, err := nextRev(ctx, st, c.spec.Name)
		if err != nil {
			return err
		}
		list := make([]string, 0, len(gone))
		for id := range gone {
			list = append(list, id)
		}
		sort.Strings(list)
		n = len(list)
		return tombstone(ctx, st, pg, c.spec.Name, rev, list)
	})
	if err != nil {
		return 0, fmt.Errorf("deleting from collection %q: %w", c.spec.Name, err)
	}
	if c.graph != nil {
		return n, c.graph.sync(ctx)
	}
	return n, nil
}

// nextRev takes the collection's next revision.
func nextRev(ctx context.Context, st *writerStmts, name string) (int64, error) {
	var rev int64
	err := st.conn.QueryRowContext(ctx, `UPDATE collections SET rev = rev + 1 WHERE name = ? RETURNING rev`, name).Scan(&rev)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("the collection was deleted")
	}
	return rev, err
}

// tombstone marks the items ids removed at revision rev.
func tombstone(ctx context.Context, st *writerStmts, pg bool, name string, rev int64, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	q := `UPDATE collection_items SET live = 0, rev = ?, text = '', metadata = '{}', vector = NULL WHERE collection = ? AND id = ?`
	if pg {
		q = `UPDATE collection_items SET live = 0, rev = ?, text = '', metadata = '{}', embedding = NULL WHERE collection = ? AND id = ?`
	}
	stmt, err := st.conn.PrepareContext(ctx, q)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, id := range ids {
		if _, err := stmt.ExecContext(ctx, rev, name, id); err != nil {
			return err
		}
	}
	return nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// matchingIDs are the live items of the collection whose metadata match
// f: the database narrows them by f's equalities, and f decides.
func matchingIDs(ctx context.Context, q querier, pg bool, name string, f blocks.Filter) ([]string, error) {
	where, args := filterSQL(pg, f)
	rows, err := q.QueryContext(ctx, `SELECT id, metadata FROM collection_items WHERE collection = ? AND live = 1`+where,
		append([]any{name}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id, meta string
		if err := rows.Scan(&id, &meta); err != nil {
			return nil, err
		}
		m, err := decodeMetadata(meta)
		if err != nil {
			return nil, fmt.Errorf("item %q: %w", id, err)
		}
		if f.Match(m) {
			ids = append(ids, id)
		}
	}
	return ids, rows.Err()
}

// filterSQL is the SQL that narrows rows to those that may match f (and
// on PostgreSQL, to exactly those).
func filterSQL(pg bool, f blocks.Filter) (string, []any) {
	var b strings.Builder
	var args []any
	for _, c := range f {
		switch {
		case pg && c.Eq != nil:
			j, _ := json.Marshal(c.Eq)
			b.WriteString(` AND metadata::jsonb -> ? = ?::jsonb`)
			args = append(args, c.Key, string(j))
		case pg:
			b.WriteString(` AND jsonb_typeof(metadata::jsonb -> ?) = 'number'`)
			args = append(args, c.Key)
			for _, bound := range []struct {
				op string
				v  *float64
			}{{">", c.GT}, {">=", c.GTE}, {"<", c.LT}, {"<=", c.LE}} {
				if bound.v != nil {
					b.WriteString(` AND (metadata::jsonb ->> ?)::float8 ` + bound.op + ` ?`)
					args = append(args, c.Key, *bound.v)
				}
			}
		case c.Eq != nil:
			switch v := c.Eq.(type) {
			case string:
				b.WriteString(` AND json_extract(metadata, ?) = ?`)
				args = append(args, jsonPath(c.Key), v)
			case float64:
				b.WriteString(` AND json_extract(metadata, ?) = ?`)
				args = append(args, jsonPath(c.Key), v)
			}
		}
	}
	return b.String(), args
}

// jsonPath is SQLite's JSON path of a top-level key.
func jsonPath(key string) string {
	j, _ := json.Marshal(key)
	return "$." + string(j)
}

// encodeMetadata is metadata as stored: a JSON object of strings, numbers
// and booleans.
func encodeMetadata(m map[string]any) (string, error) {
	for k, v := range m {
		switch x := v.(type) {
		case string, bool:
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return "", fmt.Errorf("the value of %q is not a finite number", k)
			}
		default:
			return "", fmt.Errorf("the value of %q is a %T; metadata values are strings, numbers and booleans", k, v)
		}
	}
	if m == nil {
		return "{}", nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

func decodeMetadata(s string) (map[string]any, error) {
	m := map[string]any{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("damaged metadata: %w", err)
	}
	return m, nil
}

// vectorText is v as pgvector reads it: [1,2,3].
func vectorText(v []float32) string {
	b := make([]byte, 0, 12*len(v)+2)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendFloat32(b, x)
	}
	return string(append(b, ']'))
}

func appendFloat32(b []byte, x float32) []byte {
	return strconv.AppendFloat(b, float64(x), 'g', -1, 32)
}

// score turns a distance of the collection's kind into a similarity:
// higher is closer.
func score(distance string, d float64) float64 {
	switch distance {
	case blocks.DistanceCosine:
		return 1 - d
	case blocks.DistanceDot:
		return -d
	}
	return -d
}
