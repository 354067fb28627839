package project

import (
	"errors"
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
)

// OpenDiagnostics is the diagnostic of a state that Open could not open in
// dir (a directory, or a postgres:// URL shown without its password): a
// shared database whose schema is older than this flowctl's, a state
// another process writes to, or what else went wrong.
func OpenDiagnostics(dir string, err error) hcl.Diagnostics {
	if state.IsURL(dir) {
		dir = state.RedactURL(dir)
	}
	summary, detail := "Cannot open the state", fmt.Sprintf("The state in %s cannot be opened: %s.", dir, trimStop(err.Error()))
	var se *state.SchemaError
	switch {
	case errors.As(err, &se):
		summary, detail = "State schema out of date", fmt.Sprintf("The state database %s has schema version %d, and this flowctl uses version %d. Upgrade it with: flowctl state migrate --state %s (add --dry-run to see the SQL first), or pass --migrate. Older flowctl processes that share it cannot open it afterwards; upgrade them first, or together.",
			dir, se.Version, state.SchemaVersion(), dir)
	case errors.Is(err, state.ErrLocked):
		summary, detail = "State locked", fmt.Sprintf("The state in %s cannot be opened: %s. Another flowctl (or another program) is writing to it; try again when it has finished.", dir, trimStop(err.Error()))
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: detail}}
}

func trimStop(s string) string { return strings.TrimRight(s, ".") }
