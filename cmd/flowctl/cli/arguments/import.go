package arguments

import (
	"slices"

	"github.com/spf13/pflag"
)

// Import is import FILE....
type Import struct {
	From    string   // --from; "": detected
	Out     string   // --out DIR
	Blocks  string   // --blocks: AgentFlow block definitions
	Partial bool     // --partial
	Force   bool     // --force
	JSON    bool     // --json
	Files   []string // FILE...
}

// Flags adds import's flags.
func (a *Import) Flags(fs *pflag.FlagSet) {
	fs.StringVar(&a.From, "from", "", "the source format: anythingllm, agentflow or n8n (default: detected)")
	fs.StringVar(&a.Out, "out", ".", "the directory to write the flows into")
	fs.StringVar(&a.Blocks, "blocks", "", "AgentFlow block definitions: a directory of JSON files, or a JSON file holding a list")
	fs.BoolVar(&a.Partial, "partial", false, "write the flows even when parts cannot be converted (those parts fail at run time)")
	fs.BoolVar(&a.Force, "force", false, "replace files that exist in --out with other content (or are symbolic links)")
	fs.BoolVar(&a.JSON, "json", false, "print the files written and the diagnostics as JSON")
}

// Args reads the files and checks the flags.
func (a *Import) Args(args []string) error {
	if err := minArgs(args, 1); err != nil {
		return err
	}
	if a.From != "" && !slices.Contains(ImportFormats, a.From) {
		return Usagef("unknown --from %q: use anythingllm, agentflow or n8n", a.From)
	}
	a.Files = args
	return nil
}
