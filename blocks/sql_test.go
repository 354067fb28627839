package blocks

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/runtime/state/pgtest"
	"github.com/zclconf/go-cty/cty"
)

func sqlCall(t *testing.T, dir, url, query string, params cty.Value) (*Result, error) {
	t.Helper()
	return sqlExecutor{}.Execute(context.Background(), &Call{Dir: dir, Inputs: map[string]cty.Value{
		"url": cty.StringVal(url), "query": cty.StringVal(query), "params": params,
	}})
}

// sqlRoundTrip creates a table, inserts with typed params and reads the
// rows back: the same on PostgreSQL and SQLite.
func sqlRoundTrip(t *testing.T, dir, url, p1, p2 string) {
	for _, q := range []string{"DROP TABLE IF EXISTS people", "CREATE TABLE people (name TEXT, age INTEGER, ok BOOLEAN)"} {
		if _, err := sqlCall(t, dir, url, q, cty.NullVal(cty.DynamicPseudoType)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []cty.Value{
		cty.TupleVal([]cty.Value{cty.StringVal("ada"), cty.NumberIntVal(36), cty.True}),
		cty.TupleVal([]cty.Value{cty.StringVal("bob; DROP TABLE people"), cty.NumberIntVal(25), cty.False}),
	} {
		if _, err := sqlCall(t, dir, url, "INSERT INTO people (name, age, ok) VALUES ("+p1+", "+p2+", "+strings.Replace(p2, "2", "3", 1)+")", p); err != nil {
			t.Fatal(err)
		}
	}
	res, err := sqlCall(t, dir, url, "SELECT name, age FROM people WHERE age > "+strings.Replace(p1, "1", "1", 1)+" ORDER BY age", cty.TupleVal([]cty.Value{cty.NumberIntVal(20)}))
	if err != nil {
		t.Fatal(err)
	}
	rows := res.Outputs["rows"]
	if n := res.Outputs["count"]; !n.RawEquals(cty.NumberIntVal(2)) || rows.LengthInt() != 2 {
		t.Fatalf("rows %#v", rows)
	}
	first := rows.Index(cty.NumberIntVal(0))
	if first.GetAttr("name").AsString() != "bob; DROP TABLE people" || !first.GetAttr("age").RawEquals(cty.NumberIntVal(25)) {
		t.Errorf("first row %#v", first)
	}
	if _, err := sqlCall(t, dir, url, "SELECT 1; DROP TABLE people", cty.NullVal(cty.DynamicPseudoType)); err == nil || !strings.Contains(err.Error(), "more than one statement") {
		t.Errorf("two statements: %v", err)
	}
}

func TestSQLSQLite(t *testing.T) {
	sqlRoundTrip(t, t.TempDir(), "sqlite:people.db", "?", "?")
}

func TestSQLPostgres(t *testing.T) {
	url := pgtest.URL(t, "blocks_sql")
	if url == "" {
		t.Skip("no PostgreSQL (pgtest)")
	}
	sqlRoundTrip(t, "", url, "$1", "$2")
}

func TestSingleStatement(t *testing.T) {
	for q, one := range map[string]bool{
		"SELECT 1":                           true,
		"SELECT 1;":                          true,
		"SELECT 1; -- done\n":                true,
		"SELECT ';' AS x":                    true,
		`SELECT 1 AS "a;b"`:                  true,
		"SELECT $$a;b$$":                     true,
		"SELECT $1::text; ":                  true,
		"SELECT 1; SELECT 2":                 false,
		"SELECT ';'; DELETE FROM t":          false,
		"SELECT 1 /* ; */; /* x */ SELECT 2": false,
	} {
		if err := singleStatement(q); (err == nil) != one {
			t.Errorf("%q: %v", q, err)
		}
	}
}

// A PostgreSQL server is dialled only where the egress list allows, as
// for the http block.
func TestSQLEgress(t *testing.T) {
	e, err := AllowOnly([]string{"example.org"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sqlExecutor{e}.Execute(context.Background(), &Call{Inputs: map[string]cty.Value{
		"url": cty.StringVal("postgres://u:p@127.0.0.1:1/db?connect_timeout=5"), "query": cty.StringVal("SELECT 1"), "params": cty.NullVal(cty.DynamicPseudoType),
	}})
	var ee *EgressError
	if !errors.As(err, &ee) {
		t.Errorf("got %v, want an egress error", err)
	}
}
