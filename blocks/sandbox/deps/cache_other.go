//go:build !unix

package deps

// checkPrivate: directories' owners and modes are Unix's.
func checkPrivate(dir string) error { return nil }
