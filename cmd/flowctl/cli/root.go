package cli

import (
	"fmt"
	"io"
	"os"
	goruntime "runtime"

	"github.com/flowctl/flowctl/blocks/sandbox/isolate"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

// Exit codes (docs/design.md, "Commands").
const (
	exitOK      = 0
	exitFailure = 1 // diagnostics with errors, a failed run, files that need formatting
	exitUsage   = 2 // usage errors; plan --detailed-exitcode: steps would run
	// exitWaiting (3): a run waits for an approval (approve.go).
)

// streams are a command's standard streams.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// Main runs flowctl with the process's arguments and streams and returns
// the exit code.
func Main() int {
	if len(os.Args) > 1 && os.Args[1] == isolate.WorkerArg {
		return isolate.Main(os.Args[2:])
	}
	exiting = true
	return Run(os.Args[1:], streams{in: os.Stdin, out: os.Stdout, err: os.Stderr})
}

// exiting is set by Main: the process exits when its command returns, so
// apply closes its state for the exit (closeState). Run, which tests call
// many times in one process, closes it whole.
var exiting bool

// closeState closes a state that apply wrote, for the exit when the
// process is about to (state.Store.CloseForExit).
func closeState(st *state.Store) {
	if exiting {
		st.CloseForExit()
		return
	}
	st.Close()
}

// Run runs flowctl with the given arguments and streams.
func Run(args []string, s streams) int {
	root := newRootCommand(s)
	// started is set once the command line has been accepted: errors after
	// that are failures (exit 1), errors before it are usage errors.
	started := false
	root.PersistentPreRun = func(*cobra.Command, []string) { started = true }
	root.SetArgs(arguments.GoStyleRun(args))
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	return report(s, cmd, args, err, started)
}

func newRootCommand(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "flowctl",
		Short: "Validate, plan and run LLM and automation pipelines written as HCL",
		Long: `flowctl is a toolchain for LLM and automation pipelines written as code.

A flow is an HCL file (NAME.flow.hcl) of steps that use typed blocks. flowctl
type-checks the flow and the wiring between its steps, shows what a run would
do, runs it, and keeps its results and cache in the project's state: the
nearest .flowctl from the working directory up to the top of its git
repository, else the one at that top, else the working directory's.
flowctl init makes a project to start from.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// flowctl --version, as flowctl version prints it.
	root.Version = version()
	root.SetVersionTemplate(fmt.Sprintf("flowctl {{.Version}} (%s %s/%s)\n", goruntime.Version(), goruntime.GOOS, goruntime.GOARCH))
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return arguments.FlagError(err, cmd.Flags(), cmd.InheritedFlags())
	})
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(
		newInitCommand(s),
		newLockCommand(s),
		newValidateCommand(s),
		newFmtCommand(s),
		newGraphCommand(s),
		newPlanCommand(s),
		newApplyCommand(s),
		newApproveCommand(s),
		newWatchCommand(s),
		newRunsCommand(s),
		newOutputCommand(s),
		newBlocksCommand(s),
		newTestCommand(s),
		newEvalCommand(s),
		newVersionCommand(s),
		newThinkCommand(s),
		newProposalsCommand(s),
		newExplainCommand(s),
		newPatternsCommand(s),
		newServeCommand(s),
		newToolsCommand(s),
		newMCPCommand(s),
		newWorkerCommand(s),
		newLSPCommand(s),
		newDocsCommand(s),
		newImportCommand(s),
		newStateCommand(s),
	)
	addEvalResults(root, s)
	return root
}
