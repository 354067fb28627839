package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/flowctl/flowctl/runtime/state"
)

// WriteStateVersion says that the SQLite state in dir is at this
// flowctl's schema version (state migrate on a directory).
func WriteStateVersion(w io.Writer, dir string, version int) {
	fmt.Fprintf(w, "The state in %s is at schema version %d, this flowctl's (SQLite is upgraded when opened).\n", dir, version)
}

// WriteMigration says what state migrate did to the database shown (its
// location without a password): nothing, the SQL it would run with
// dryRun, or the versions it migrated between.
func WriteMigration(w io.Writer, shown string, m *state.Migration, dryRun bool) {
	switch {
	case len(m.Statements) == 0:
		fmt.Fprintf(w, "The state database %s is at schema version %d, this flowctl's: nothing to migrate.\n", shown, m.To)
	case dryRun:
		for _, stmt := range m.Statements {
			fmt.Fprintln(w, strings.TrimSpace(stmt))
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "Would migrate the state database %s from schema version %d to %d (dry run: nothing changed).\n", shown, m.From, m.To)
	default:
		fmt.Fprintf(w, "Migrated the state database %s from schema version %d to %d.\n", shown, m.From, m.To)
	}
}
