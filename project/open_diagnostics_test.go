package project

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/runtime/state"
)

// TestOpenDiagnostics: a schema too old, a locked state and any other error
// each have their diagnostic; a database's password is not shown.
func TestOpenDiagnostics(t *testing.T) {
	for _, c := range []struct {
		dir     string
		err     error
		summary string
		detail  string
	}{
		{"postgres://u:secret@db/flows", &state.SchemaError{Version: 1}, "State schema out of date", "has schema version 1, and this flowctl uses version"},
		{".flowctl", fmt.Errorf("opening: %w", state.ErrLocked), "State locked", "The state in .flowctl cannot be opened: opening: "},
		{".flowctl", errors.New("disk full."), "Cannot open the state", "The state in .flowctl cannot be opened: disk full."},
	} {
		diags := OpenDiagnostics(c.dir, c.err)
		if len(diags) != 1 || diags[0].Summary != c.summary || !strings.Contains(diags[0].Detail, c.detail) || strings.Contains(diags[0].Detail, "secret") {
			t.Errorf("%v: %s: %s", c.err, diags[0].Summary, diags[0].Detail)
		}
	}
}
