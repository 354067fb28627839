package lang

import (
	"testing"
	"time"
)

// TestParseAge: days, weeks and Go durations are ages; anything else, or
// an age that is not positive, is an error that says what an age is.
func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "1.5d": 36 * time.Hour, "12h": 12 * time.Hour, "90m": 90 * time.Minute} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{"soon": "not an age such as 30d, 2w, 12h or 90m", "-3h": "not an age such as 30d, 2w, 12h or 90m",
		"0d": "not a positive number of days", "xw": "not a positive number of weeks"} {
		if _, err := ParseAge(in); err == nil || err.Error() != want {
			t.Errorf("ParseAge(%q): %v, want %q", in, err, want)
		}
	}
}
