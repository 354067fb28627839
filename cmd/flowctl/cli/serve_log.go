package cli

import (
	"io"
	"log/slog"

	"github.com/flowctl/flowctl/server"
	"github.com/spf13/cobra"
)

// The log of the commands that run as services (serve, mcp --http,
// worker): log/slog on standard error, as text (key=value, the default) or
// as JSON (--log-format json), one record a line. A command adds the flag
// with logFlags.register and makes its logger with logFlags.logger.

// logFlags is --log-format.
type logFlags struct{ format string }

// register adds --log-format to cmd.
func (f *logFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.format, "log-format", "text", "the log's format on standard error: text (key=value) or json")
}

// logger is the command's logger, writing to w (server.NewLogger).
func (f *logFlags) logger(w io.Writer) (*slog.Logger, error) {
	log, err := server.NewLogger(w, f.format)
	if err != nil {
		return nil, usagef("%s", err)
	}
	return log, nil
}
