package arguments

import (
	"strings"

	"github.com/spf13/pflag"
)

// Blocks is blocks [list | search QUERY | show NAME].
type Blocks struct {
	Registries Registries
	JSON       bool   // --json
	Limit      int    // --limit: of search
	Sub        string // list, search or show
	Query      string // of search: its words joined by spaces
	Name       string // of show: the block's name
}

// Flags adds blocks's flags.
func (a *Blocks) Flags(fs *pflag.FlagSet) {
	a.Registries.Flags(fs)
	fs.BoolVar(&a.JSON, "json", false, "print JSON")
	fs.IntVar(&a.Limit, "limit", 10, "search: show at most this many blocks")
}

// Args reads the subcommand and its arguments.
func (a *Blocks) Args(args []string) error {
	a.Sub = "list"
	if len(args) > 0 {
		a.Sub, args = args[0], args[1:]
	}
	switch {
	case a.Sub == "list" && len(args) == 0:
		return nil
	case a.Sub == "list":
		return Usagef("blocks list takes no arguments")
	case a.Sub == "search" && strings.TrimSpace(strings.Join(args, " ")) != "":
		if a.Limit < 1 {
			return Usagef("--limit must be at least 1")
		}
		a.Query = strings.Join(args, " ")
		return nil
	case a.Sub == "search":
		return Usagef("blocks search needs a query, such as: flowctl blocks search \"fetch a web page\"")
	case a.Sub == "show" && len(args) == 1:
		a.Name = args[0]
		return nil
	case a.Sub == "show":
		return Usagef("blocks show needs one block name")
	}
	return Usagef("unknown blocks subcommand %q: use list, search QUERY or show NAME", a.Sub)
}
