package cli

import (
	"io"
	"log/slog"
)

// The log of the commands that run as services (serve, mcp --http,
// worker): log/slog on standard error, as text (key=value, the default) or
// as JSON (--log-format json), one record a line. A command adds the flag
// with arguments.Log and makes its logger with logFlags.logger.

// logFlags is --log-format.
type logFlags struct{ format string }

// logger is the command's logger, writing to w.
func (f logFlags) logger(w io.Writer) (*slog.Logger, error) {
	switch f.format {
	case "text", "":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, usagef("unknown --log-format %q: use text or json", f.format)
}
