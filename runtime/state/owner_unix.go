//go:build unix

package state

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

const lockingWorks = true

// tryLock takes an exclusive lock on f without waiting; false when another
// process holds it.
func tryLock(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
