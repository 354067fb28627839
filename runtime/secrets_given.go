package runtime

import "errors"

import "strings"

// GivenSecrets are the secret values of NAME=VALUE pairs (--secret), for
// Options.Secrets; a pair without a name is an error.
func GivenSecrets(pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, pair := range pairs {
		name, val, ok := strings.Cut(pair, "=")
		if !ok || name == "" {
			return nil, errors.New("--secret must have the form NAME=VALUE")
		}
		out[name] = val
	}
	return out, nil
}
