package arguments

import (
	"time"

	"github.com/spf13/pflag"
)

// LSP is lsp [--registry DIR]....
type LSP struct {
	Registries Registries
	Debounce   time.Duration // --debounce
}

// Flags adds lsp's flags.
func (a *LSP) Flags(fs *pflag.FlagSet) {
	a.Registries.Flags(fs)
	fs.DurationVar(&a.Debounce, "debounce", DefaultLSPDebounce, "how long to wait after an edit before checking")
}

// Args refuses arguments.
func (a *LSP) Args(args []string) error { return noArgs(args, "flowctl lsp") }
