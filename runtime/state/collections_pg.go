package state

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/flowctl/flowctl/blocks"
)

// pgEfSearch is hnsw.ef_search for a PostgreSQL search: how many
// candidates the index keeps while it walks, at least top_k (pgvector's
// default of 40 misses too many of the true nearest over 768 dimensions).
const pgEfSearch = 200

// pgSearchSettings are set on every connection to a PostgreSQL state
// when it is made: a search of at most pgEfSearch items is then one
// statement, with no transaction to scope them (iterative scans go on
// until enough rows pass a filter).
var pgSearchSettings = map[string]string{
	"hnsw.ef_search":      fmt.Sprint(pgEfSearch),
	"hnsw.iterative_scan": "relaxed_order",
}

// pgMaxIndexed is the most dimensions pgvector's HNSW index takes.
const pgMaxIndexed = 2000

// pgOps are pgvector's operator and operator class of each distance.
var pgOps = map[string][2]string{
	blocks.DistanceCosine:    {"<=>", "vector_cosine_ops"},
	blocks.DistanceEuclidean: {"<->", "vector_l2_ops"},
	blocks.DistanceDot:       {"<#>", "vector_ip_ops"},
}

// pgIndexName is the name of a collection's HNSW index.
func pgIndexName(name string) string {
	h := fnv.New64a()
	h.Write([]byte(name))
	return fmt.Sprintf("collection_items_hnsw_%016x", h.Sum64())
}

// pgCast is the expression of a collection's vectors, with its
// dimensions: what its index is on and what a search orders by.
func (c *collection) pgCast() string {
	return fmt.Sprintf("(embedding::%s.vector(%d))", c.pgSchema, c.spec.Dimensions)
}

// makePostgresIndex makes the collection's HNSW index when it is not
// there: a partial index on its rows, of its dimensions.
func (c *collection) makePostgresIndex(ctx context.Context) error {
	if c.spec.Dimensions > pgMaxIndexed {
		return nil // searched without an index
	}
	name := pgIndexName(c.spec.Name)
	var n int
	if err := c.s.db.scanRow(ctx, `SELECT count(*) FROM pg_indexes WHERE indexname = ? AND schemaname = current_schema()`, []any{name}, &n); err != nil {
		return fmt.Errorf("opening collection %q: %w", c.spec.Name, err)
	}
	if n > 0 {
		return nil
	}
	stmt := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON collection_items USING hnsw (%s %s) WHERE collection = %s`,
		name, c.pgCast(), c.pgSchema+"."+pgOps[c.spec.Distance][1], quoteLiteral(c.spec.Name))
	err := c.s.w.doCtx(ctx, func(ctx context.Context, st *writerStmts) error {
		_, err := st.conn.ExecContext(ctx, stmt)
		return err
	})
	if err != nil {
		return fmt.Errorf("making the index of collection %q: %w", c.spec.Name, err)
	}
	return nil
}

// quoteIdent is s as an SQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// quoteLiteral is s as an SQL string literal.
func quoteLiteral(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, '\'')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}

// searchPostgres finds the k items nearest v that match f, through the
// collection's HNSW index (iterative scans go on until enough rows
// pass the filter).
func (c *collection) searchPostgres(ctx context.Context, v []float32, k int, f blocks.Filter) ([]blocks.VectorMatch, error) {
	var q interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	} = c.s.db
	if k > pgEfSearch {
		// More than the connection's setting keeps: raised for this
		// search alone.
		tx, err := c.s.db.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`SET LOCAL hnsw.ef_search = %d`, k)); err != nil {
			return nil, err
		}
		q = tx
	}
	op := pgOps[c.spec.Distance][0]
	dist := fmt.Sprintf(`%s OPERATOR(%s.%s) ?1::%s.vector(%d)`, c.pgCast(), c.pgSchema, op, c.pgSchema, c.spec.Dimensions)
	where, args := filterSQL(true, f)
	stmt := `SELECT id, text, metadata, ` + dist + ` FROM collection_items WHERE collection = ?2 AND live = 1`
	// filterSQL's parameters come after ?1 and ?2.
	stmt += renumber(where, 3) + ` ORDER BY ` + dist + ` LIMIT ` + fmt.Sprint(k)
	rows, err := q.QueryContext(ctx, c.s.db.b.bind(stmt), append([]any{vectorText(v), c.spec.Name}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []blocks.VectorMatch
	for rows.Next() {
		var m blocks.VectorMatch
		var meta string
		var d float64
		if err := rows.Scan(&m.ID, &m.Text, &meta, &d); err != nil {
			return nil, err
		}
		if m.Metadata, err = decodeMetadata(meta); err != nil {
			return nil, err
		}
		m.Score = score(c.spec.Distance, d)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// relaxed_order may return the rows slightly out of order.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out, nil
}

// renumber makes the ? parameters of an SQL fragment ?from, ?from+1, ....
func renumber(fragment string, from int) string {
	out := make([]byte, 0, len(fragment)+8)
	for i := 0; i < len(fragment); i++ {
		out = append(out, fragment[i])
		if fragment[i] == '?' {
			out = append(out, fmt.Sprint(from)...)
			from++
		}
	}
	return string(out)
}
