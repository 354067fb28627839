package arguments

import "strings"

// recordSubcommand reads the arguments of a command over records of the
// state, `NAME [list | VERB ID]` (patterns, proposals): the subcommand,
// list when none is given, and the record's ID when it takes one. what
// names the record in the messages of a wrong use.
func recordSubcommand(name, what string, args []string, verbs ...string) (sub, id string, err error) {
	sub = "list"
	if len(args) > 0 {
		sub, args = args[0], args[1:]
	}
	switch {
	case sub == "list" && len(args) == 0:
		return sub, "", nil
	case sub == "list":
		return "", "", Usagef("%s list takes no ID", name)
	}
	for _, v := range verbs {
		if sub != v {
			continue
		}
		if len(args) != 1 {
			return "", "", Usagef("%s %s needs one %s ID", name, sub, what)
		}
		return sub, args[0], nil
	}
	return "", "", Usagef("unknown %s subcommand %q: use list, %s ID", name, sub, strings.Join(verbs, " ID, "))
}
