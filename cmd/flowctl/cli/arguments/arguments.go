package arguments

import (
	"fmt"

	"github.com/spf13/pflag"
)

// UsageError is a mistake in the command line (exit 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef makes a UsageError of a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(format, args...)}
}

// flagSet remembers the FlagSet a struct's flags were added to, to tell a
// flag given on the command line from its default.
type flagSet struct{ fs *pflag.FlagSet }

// changed reports whether the command line gave the flag name.
func (f flagSet) changed(name string) bool { return f.fs != nil && f.fs.Changed(name) }

// The checks of positional arguments, with cobra's messages.

func maxArgs(args []string, n int) error {
	if len(args) > n {
		return Usagef("accepts at most %d arg(s), received %d", n, len(args))
	}
	return nil
}

func exactArgs(args []string, n int) error {
	if len(args) != n {
		return Usagef("accepts %d arg(s), received %d", n, len(args))
	}
	return nil
}

func rangeArgs(args []string, min, max int) error {
	if len(args) < min || len(args) > max {
		return Usagef("accepts between %d and %d arg(s), received %d", min, max, len(args))
	}
	return nil
}

func minArgs(args []string, n int) error {
	if len(args) < n {
		return Usagef("requires at least %d arg(s), only received %d", n, len(args))
	}
	return nil
}

// noArgs refuses any argument of the command whose path is path.
func noArgs(args []string, path string) error {
	if len(args) > 0 {
		return Usagef("unknown command %q for %q", args[0], path)
	}
	return nil
}

// pathsOrDot is the paths given, else the current directory.
func pathsOrDot(args []string) []string {
	if len(args) == 0 {
		return []string{"."}
	}
	return args
}

// oneOr is the one argument given, else def.
func oneOr(args []string, def string) string {
	if len(args) == 1 {
		return args[0]
	}
	return def
}
