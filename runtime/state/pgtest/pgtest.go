package pgtest

import (
	"database/sql"
	"os"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// EnvURL names the database the tests' schemas are made in.
const EnvURL = "FLOWCTL_TEST_STATE_URL"

// URL creates the schema name (once) in the database of EnvURL and
// returns that database's URL with the schema as its search path; "" when
// EnvURL is not set (the test then skips), and the test fails when CI is
// set.
func URL(t testing.TB, name string) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("no PostgreSQL: %s is not set (.ci/run runs the tests under .ci/with-postgres)", EnvURL)
		}
		return ""
	}
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE SCHEMA IF NOT EXISTS ` + name); err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + name
}
