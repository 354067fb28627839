package state

import (
	"fmt"
	"strings"
)

// byIDOrPrefix returns the records query finds with where and args (an ID
// or a name that is id), else, when it finds none and id has MinPrefix
// characters at least, those whose ID starts with id in lower case.
func byIDOrPrefix[T any](query func(string, ...any) ([]T, error), id, where string, args ...any) ([]T, error) {
	found, err := query(where, args...)
	if err == nil && len(found) == 0 && len(id) >= MinPrefix {
		found, err = startingWith(strings.ToLower(id), query)
	}
	return found, err
}

// only returns the one record of found, or an error wrapping notFound:
// none (a format with id for its %q) when there is none, and one that
// says how many of them (plural) id matches when there are several.
func only[T any](found []T, err error, id string, notFound error, none, plural string) (T, error) {
	var zero T
	switch {
	case err != nil:
		return zero, err
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0:
		return zero, fmt.Errorf("%w: "+none, notFound, id)
	}
	return zero, fmt.Errorf("%w: %q matches %d %s; type more of the ID", notFound, id, len(found), plural)
}
