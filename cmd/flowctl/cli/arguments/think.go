package arguments

import (
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/spf13/pflag"
)

// Think is think "INTENT".
type Think struct {
	flagSet
	Intent     string // INTENT, trimmed
	Out        string // --out FILE.flow.hcl
	Registries Registries
	Model      string // --model
	NoClarify  bool   // --no-clarify
	Force      bool   // --force
	JSON       bool   // --json
	Sandbox    string // --sandbox
	Runtime    string // --runtime: of the code blocks created; "": the model's choice
	Unconfined bool   // --unconfined
	// AllowPackages is --allow-packages: created python blocks may
	// declare requirements.
	AllowPackages bool
	Edit          string // --edit FLOW
	Accept        bool   // --accept
	MaxCalls      int    // --max-calls
	// MaxTokens is --max-tokens; 0 when not given (FLOWCTL_MAX_TOKENS,
	// read when the command runs, else no limit).
	MaxTokens  int
	LogPrompts string // --log-prompts FILE
}

// Flags adds think's flags.
func (a *Think) Flags(fs *pflag.FlagSet) {
	a.fs = fs
	fs.StringVar(&a.Out, "out", "", "the flow file to write (default: ./NAME.flow.hcl, NAME the flow's name)")
	a.Registries.FlagsFor(fs, "search and use")
	fs.StringVar(&a.Model, "model", "", "the model to ask (default: FLOWCTL_MODEL)")
	fs.BoolVar(&a.NoClarify, "no-clarify", false, "skip the clarify stage: take the intent as it is")
	fs.BoolVar(&a.Force, "force", false, "write the last flow attempt even when it does not validate (exit status 1)")
	fs.BoolVar(&a.JSON, "json", false, "print the thinker's events as JSON lines")
	fs.StringVar(&a.Sandbox, "sandbox", SandboxIsolated, "where the examples of created go and js blocks run: isolated (worker processes) or inprocess")
	fs.StringVar(&a.Runtime, "runtime", "", "write the blocks of code it creates in this runtime: go, js or python (default: the model chooses)")
	fs.BoolVar(&a.Unconfined, "unconfined", false, unconfinedUsage)
	fs.BoolVar(&a.AllowPackages, "allow-packages", false, "let the python blocks it creates declare requirements (PyPI packages, locked by flowctl lock before they run)")
	fs.StringVar(&a.Edit, "edit", "", "change this flow (a flow file, or a directory holding one) instead of writing a new one: stage the change as a proposal")
	fs.BoolVar(&a.Accept, "accept", false, "with --edit: write the proposed change at once")
	fs.IntVar(&a.MaxCalls, "max-calls", DefaultThinkMaxCalls, "the most model requests the whole run may send")
	fs.IntVar(&a.MaxTokens, "max-tokens", 0, maxTokensUsage)
	fs.StringVar(&a.LogPrompts, "log-prompts", "", "append one JSON line per LLM round trip (request, response, duration, tokens, error) to this file")
}

// Args reads INTENT and checks the flags.
func (a *Think) Args(args []string) error {
	if err := exactArgs(args, 1); err != nil {
		return err
	}
	a.Intent = strings.TrimSpace(args[0])
	switch {
	case a.Intent == "":
		return Usagef("the intent is empty; say what the flow should do")
	case a.Out != "" && !lang.IsFlowFile(a.Out):
		return Usagef("--out must name a *.flow.hcl file, not %q", a.Out)
	case a.MaxCalls < 1:
		return Usagef("--max-calls must be at least 1")
	case a.Edit != "" && (a.Out != "" || a.Force):
		return Usagef("--edit proposes a change of its flow: --out and --force do not apply")
	case a.Accept && a.Edit == "":
		return Usagef("--accept is for --edit, which proposes a change")
	case a.Runtime != "" && a.Runtime != lang.RuntimeGo && a.Runtime != lang.RuntimeJS && a.Runtime != lang.RuntimePython:
		return Usagef("unknown --runtime %q: use go, js or python", a.Runtime)
	}
	if err := checkMaxTokens(a.flagSet, a.MaxTokens); err != nil {
		return err
	}
	return checkSandbox(a.Sandbox)
}
