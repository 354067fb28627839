package result

import "testing"

// TestStatuses: the statuses are the words the reports print and the
// JSON carries.
func TestStatuses(t *testing.T) {
	for s, want := range map[Status]string{StatusPassed: "passed", StatusFailed: "failed", StatusErrored: "errored"} {
		if string(s) != want {
			t.Errorf("status %q, want %q", s, want)
		}
	}
}
