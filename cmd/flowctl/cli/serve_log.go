package cli

import (
	"io"
	"log/slog"

	"github.com/flowctl/flowctl/server"
)

// The log of the commands that run as services (serve, mcp --http,
// worker): log/slog on standard error, as text (key=value, the default) or
// as JSON (--log-format json), one record a line. A command adds the flag
// with arguments.Log and makes its logger with logFlags.logger.

// logFlags is --log-format.
type logFlags struct{ format string }

// logger is the command's logger, writing to w (server.NewLogger).
func (f logFlags) logger(w io.Writer) (*slog.Logger, error) {
	log, err := server.NewLogger(w, f.format)
	if err != nil {
		return nil, usagef("%s", err)
	}
	return log, nil
}
