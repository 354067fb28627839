package cli

import (
	"strings"

	"github.com/agext/levenshtein"
	"github.com/flowctl/flowctl/lang"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagError is the usage error for a flag cobra could not parse, with the
// long flag that was likely meant: Terraform writes -auto-approve and
// -out=FILE with one dash, which pflag reads as the shorthands -a and -o.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if s := suggestFlag(cmd, msg); s != "" {
		msg += "; did you mean " + s + "?"
	}
	return usageError{msg}
}

// suggestFlag returns the long flag (with its two dashes) that pflag's
// message about an unknown flag likely meant, or "".
func suggestFlag(cmd *cobra.Command, msg string) string {
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
	cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
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
