package arguments

import (
	"strings"

	"github.com/agext/levenshtein"
	"github.com/flowctl/flowctl/lang"
	"github.com/spf13/pflag"
)

// FlagError is the usage error for a flag pflag could not parse in the
// flag sets (a command's own and those it inherits), with the long flag
// that was likely meant: Terraform writes -auto-approve and -out=FILE
// with one dash, which pflag reads as the shorthands -a and -o.
func FlagError(err error, sets ...*pflag.FlagSet) error {
	msg := err.Error()
	if s := suggestFlag(msg, sets...); s != "" {
		msg += "; did you mean " + s + "?"
	}
	return &UsageError{msg}
}

// suggestFlag returns the long flag (with its two dashes) that pflag's
// message about an unknown flag likely meant, or "".
func suggestFlag(msg string, sets ...*pflag.FlagSet) string {
	var given string
	switch {
	case strings.HasPrefix(msg, "unknown shorthand flag: ") && strings.Contains(msg, " in -"):
		// unknown shorthand flag: 'a' in -auto-approve
		given = msg[strings.LastIndex(msg, " in -")+len(" in -"):]
	case strings.HasPrefix(msg, "unknown flag: --"):
		given = strings.TrimPrefix(msg, "unknown flag: --")
	default:
		return ""
	}
	name, value, hasValue := strings.Cut(given, "=")
	var names []string
	for _, fs := range sets {
		fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	}
	meant := ""
	for _, n := range names {
		if n == name {
			meant = n
		}
	}
	if meant == "" {
		// A misspelling: a few letters off. Flags share starts (no-,
		// max-) too often for a shared start to count, as it does in
		// lang.Suggest.
		best := lang.Closest(name, names, 1)
		if len(best) == 0 || levenshtein.Distance(name, best[0], nil) > min(2, len(name)/4) {
			return ""
		}
		meant = best[0]
	}
	if hasValue {
		return "--" + meant + "=" + value
	}
	return "--" + meant
}
