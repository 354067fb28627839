package lang

import "path/filepath"

// AbsPath is p made absolute, or cleaned when it cannot be: the key by
// which two names of one file compare equal.
func AbsPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}
