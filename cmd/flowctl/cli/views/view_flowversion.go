package views

import (
	"fmt"
	"io"
)

// What runs show says of a run's version and pause, and what approve
// and apply --resume say of the version a run resumes with.

type jsonVersion struct {
	Hash   string `json:"hash"`
	Commit string `json:"commit,omitempty"`
}

type jsonPause struct {
	Since string `json:"since"`
	By    string `json:"by"`
}

// ShortHash is a version's hash as shown: its first 12 digits.
func ShortHash(hash string) string { return hash[:min(12, len(hash))] }

func commitText(commit string) string {
	if commit == "" {
		return ""
	}
	return ", git commit " + ShortHash(commit)
}

// WritePinned says that a run resumes on the version it started with,
// although the flow's files changed since.
func WritePinned(w io.Writer, runID, hash, commit string) {
	fmt.Fprintf(w, "Run %s resumes on the version of its flow it started with (%s%s); the files changed since: --upgrade resumes it with them.\n",
		runID, ShortHash(hash), commitText(commit))
}

// WritePause says that a run was paused, or resumed from its pause.
func WritePause(w io.Writer, runID string, pause, was bool) {
	switch {
	case pause:
		fmt.Fprintf(w, "Paused run %s: the steps running finish, and no step starts until flowctl runs resume %s.\n", runID, runID)
	case was:
		fmt.Fprintf(w, "Resumed run %s: its steps start again.\n", runID)
	default:
		fmt.Fprintf(w, "Run %s was not paused.\n", runID)
	}
}
