package lang

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseAge reads an age, as runs prune --older-than and serve --retention
// take it: a Go duration (90m, 12h), or days (30d) or weeks (2w). It is
// positive.
func ParseAge(v string) (time.Duration, error) {
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(v, suffix); ok {
			f, err := strconv.ParseFloat(n, 64)
			if err != nil || f <= 0 {
				return 0, fmt.Errorf("not a positive number of %s", map[string]string{"d": "days", "w": "weeks"}[suffix])
			}
			return time.Duration(f * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("not an age such as 30d, 2w, 12h or 90m")
	}
	return d, nil
}
