package lang

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/agext/levenshtein"
	"github.com/hashicorp/hcl/v2"
)

// Error returns a one-element error diagnostic with subject rng.
func Error(rng hcl.Range, summary, detail string, args ...any) hcl.Diagnostics {
	if len(args) > 0 {
		detail = fmt.Sprintf(detail, args...)
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   detail,
		Subject:  rng.Ptr(),
	}}
}

// Warning returns a one-element warning diagnostic with subject rng.
func Warning(rng hcl.Range, summary, detail string, args ...any) hcl.Diagnostics {
	d := Error(rng, summary, detail, args...)
	d[0].Severity = hcl.DiagWarning
	return d
}

// Suggest returns " Did you mean "X"?" for the option closest to given, or ""
// when no option is close enough to be a likely typo. Case does not count:
// names are lower case, and "HTTP" means "http".
func Suggest(given string, options []string) string {
	best, bestDist := "", 4
	lower := strings.ToLower(given)
	for _, o := range options {
		d := levenshtein.Distance(lower, strings.ToLower(o), nil)
		if d < bestDist || (d == bestDist && best != "" && o < best) {
			best, bestDist = o, d
		}
	}
	if best == "" || bestDist > len(given)/2+1 {
		return ""
	}
	return " Did you mean " + strconv.Quote(best) + "?"
}

var nameRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// ValidName reports whether name is a valid name for a flow, input, step,
// block, output, memory, secret or field: [a-z_][a-z0-9_]*.
func ValidName(name string) bool { return nameRE.MatchString(name) }

func checkName(kind, name string, rng hcl.Range) hcl.Diagnostics {
	if ValidName(name) {
		return nil
	}
	return Error(rng, "Invalid name",
		"The %s name %s is not valid: names start with a lower-case letter or an underscore and contain only lower-case letters, digits and underscores.", kind, quote(name))
}

func quote(s string) string { return strconv.Quote(s) }

// SortedKeys returns the keys of m in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// RangeString is "file:line,col" for messages that point at another place.
func RangeString(rng hcl.Range) string {
	return fmt.Sprintf("%s:%d,%d", rng.Filename, rng.Start.Line, rng.Start.Column)
}

// ErrorSentence renders the errors of diagnostics in one line, "summary:
// detail" joined by "; ", each after "file:line,col: " when withRanges is
// set and it has a range. Warnings are left out.
func ErrorSentence(diags hcl.Diagnostics, withRanges bool) string {
	var parts []string
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		s := d.Summary
		if d.Detail != "" {
			s += ": " + strings.TrimSuffix(d.Detail, ".")
		}
		if withRanges && d.Subject != nil {
			s = RangeString(*d.Subject) + ": " + s
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
