package arguments

import "github.com/spf13/pflag"

// Explain is explain [RUN_ID].
type Explain struct {
	flagSet
	Run   Run
	RunID string // "": the newest failed run
	JSON  bool   // --json
	NoFix bool   // --no-fix: the diagnosis only
	Model string // --model
	// MaxTokens is --max-tokens; 0 when not given (FLOWCTL_MAX_TOKENS,
	// read when the command runs, else no limit).
	MaxTokens int
	MaxCalls  int // --max-calls
}

// Flags adds explain's flags.
func (a *Explain) Flags(fs *pflag.FlagSet) {
	a.fs = fs
	a.Run.RunFlags(fs)
	fs.BoolVar(&a.JSON, "json", false, "print events as JSON lines")
	fs.BoolVar(&a.NoFix, "no-fix", false, "give the diagnosis only")
	fs.StringVar(&a.Model, "model", "", "the model to ask (default: "+EnvModel+")")
	fs.IntVar(&a.MaxTokens, "max-tokens", 0, maxTokensUsage)
	fs.IntVar(&a.MaxCalls, "max-calls", 8, "the most model requests explain may send")
}

// Args reads RUN_ID and checks the flags.
func (a *Explain) Args(args []string) error {
	if err := maxArgs(args, 1); err != nil {
		return err
	}
	a.RunID = oneOr(args, "")
	if err := checkMaxTokens(a.flagSet, a.MaxTokens); err != nil {
		return err
	}
	return a.Run.Args()
}

// checkMaxTokens refuses a --max-tokens given below 1.
func checkMaxTokens(f flagSet, n int) error {
	if f.changed("max-tokens") && n < 1 {
		return Usagef("--max-tokens must be at least 1")
	}
	return nil
}
