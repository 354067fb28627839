//go:build unix

package deps

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivate refuses a cache directory another user could change: one
// owned by another user, or writable by its group or others. An
// environment, a package tree or a bundle found there is run as the
// user's, so another local user who could rename one into place, or swap
// one between install and use, would run code as the user.
func checkPrivate(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	switch {
	case !info.IsDir():
		return fmt.Errorf("the cache directory %s is not a directory", dir)
	case ok && int(st.Uid) != os.Getuid():
		return fmt.Errorf("the cache directory %s belongs to another user (uid %d): its packages are not used; remove it", dir, st.Uid)
	case info.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("the cache directory %s is writable by other users (%v): its packages are not used; make it private (chmod go-w %s)", dir, info.Mode().Perm(), dir)
	}
	return nil
}
