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
// names are lower case, and "HTTP" means "http". Closeness is the edit
// distance less what the names share at their start or end (see closeness):
// "rows" is nearer "row_count" than "top".
func Suggest(given string, options []string) string {
	if best := Closest(given, options, 1); len(best) == 1 && likelyTypo(given, best[0]) {
		return " Did you mean " + strconv.Quote(best[0]) + "?"
	}
	return ""
}

// SuggestAmong is Suggest, and when no option is close enough for that,
// names the closest few of them (" The closest are "a", "b" and "c".")
// so that a reader always sees what there is to choose from; "" when
// there are no options.
func SuggestAmong(given string, options []string) string {
	if s := Suggest(given, options); s != "" {
		return s
	}
	best := Closest(given, options, maxClosest)
	switch len(best) {
	case 0:
		return ""
	case 1:
		return " The only one is " + strconv.Quote(best[0]) + "."
	}
	quoted := make([]string, len(best))
	for i, b := range best {
		quoted[i] = strconv.Quote(b)
	}
	return " The closest are " + strings.Join(quoted[:len(quoted)-1], ", ") + " and " + quoted[len(quoted)-1] + "."
}

// maxClosest is how many names SuggestAmong lists.
const maxClosest = 3

// Closest returns up to n options, the closest to given first (ties in
// alphabetical order).
func Closest(given string, options []string, n int) []string {
	type scored struct {
		name  string
		score int
	}
	lower := strings.ToLower(given)
	all := make([]scored, 0, len(options))
	seen := map[string]bool{}
	for _, o := range options {
		if seen[o] {
			continue
		}
		seen[o] = true
		all = append(all, scored{o, closeness(lower, strings.ToLower(o))})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score < all[j].score
		}
		return all[i].name < all[j].name
	})
	out := make([]string, 0, min(n, len(all)))
	for _, s := range all[:min(n, len(all))] {
		out = append(out, s.name)
	}
	return out
}

// closeness ranks option o for the name a person typed, g (both lower
// case); lower is closer. It is the edit distance less twice the longer
// of the prefix and the suffix they share, when that is at least
// minAffix long: a name typed is more often a known one cut short or
// run on (rows → row_count, len → length) than one with letters changed
// throughout.
func closeness(g, o string) int {
	d := levenshtein.Distance(g, o, nil)
	if a := affix(g, o); a >= minAffix {
		d -= 2 * a
	}
	return d
}

// minAffix is the shortest shared prefix or suffix that counts.
const minAffix = 3

// affix is the length of the longer of the prefix and the suffix g and o
// share.
func affix(g, o string) int {
	n := min(len(g), len(o))
	p := 0
	for p < n && g[p] == o[p] {
		p++
	}
	s := 0
	for s < n && g[len(g)-1-s] == o[len(o)-1-s] {
		s++
	}
	return max(p, s)
}

// likelyTypo reports whether option o is near enough to given to be what
// was meant: a few edits apart for its length, or sharing a start or end
// of minAffix letters or more.
func likelyTypo(given, o string) bool {
	g, lo := strings.ToLower(given), strings.ToLower(o)
	d := levenshtein.Distance(g, lo, nil)
	return d <= min(3, len(given)/2+1) || affix(g, lo) >= minAffix
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

// Plural is "1 thing" or "3 things": n with the word for its number.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// ErrorSummary renders the errors of diags as sentences, for a run's or a
// command's error text: the first error — its detail (its summary when it
// has none) after "file:line,col: " when it has a range — and how
// many more there are ("There is 1 more error.", "There are 3 more
// errors."). Warnings are left out; "" when there are no errors.
func ErrorSummary(diags hcl.Diagnostics) string {
	var first *hcl.Diagnostic
	more := 0
	for _, d := range diags {
		switch {
		case d.Severity != hcl.DiagError:
		case first == nil:
			first = d
		default:
			more++
		}
	}
	if first == nil {
		return ""
	}
	// The detail is sentences that say what the summary titles.
	s := sentence(first.Summary)
	if first.Detail != "" {
		s = sentence(first.Detail)
	}
	if first.Subject != nil {
		s = RangeString(*first.Subject) + ": " + s
	}
	switch more {
	case 0:
	case 1:
		s += " There is 1 more error."
	default:
		s += " There are " + strconv.Itoa(more) + " more errors."
	}
	return s
}

// sentence ends s with a full stop, unless it ends a sentence already.
func sentence(s string) string {
	s = strings.TrimRight(s, " \n")
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") {
		return s
	}
	return s + "."
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
