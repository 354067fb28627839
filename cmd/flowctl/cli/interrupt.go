package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// interruptible is the context of a command that stops on the first
// SIGINT or SIGTERM: a run is cancelled (and recorded so), a server or a
// watch drains and ends. stop releases the signals, so that a second one
// ends the process as it would without the command.
func interruptible() (ctx context.Context, stop context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
