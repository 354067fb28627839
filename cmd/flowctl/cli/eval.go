package cli

import (
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/evaluate"
	"github.com/spf13/cobra"
)

func newEvalCommand(s streams) *cobra.Command {
	var a arguments.Eval
	cmd := &cobra.Command{
		Use:   "eval [PATH]",
		Short: "Run the evals (*.eval.hcl) of a flow over their datasets, scored, through the result cache",
		Long: `Eval runs the evals of the *.eval.hcl files at PATH (default: .): each dataset row
by each variant, a run of the flow through the result cache, scored; then the gates'
verdicts. Exit 0 when every gate holds, 1 when one fails, 2 on a wrong use (docs/evals.md).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			return runEval(s, &a)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

func runEval(s streams, a *arguments.Eval) error {
	goEngine, err := resolveGoEngine(a.GoEngine)
	if err != nil {
		return err
	}
	parser, lo := lang.NewParser(), evaluate.LoadOptions{Registries: a.Registries, GoEngine: goEngine}
	evals, diags := evaluate.Find(parser, []string{a.Path}, lo)
	if diags = compiler.Normalize(diags); diags.HasErrors() || len(evals) == 0 {
		return &diagsError{diags: diags, files: parser.Files(), trailer: views.EvalNotRun(diags, a.Path)}
	} else if err := evaluate.CheckUse(evals, evaluate.Options{Variants: a.Variants, Baseline: a.Outputs.Baseline, JUnit: a.Outputs.JUnit, Report: a.Outputs.Report}); err != nil {
		return usagef("%s", err)
	}
	st, err := openStore(s.err, &a.Store, project.State(a.State, project.Base(evals[0].Program.Filename, ".")))
	if err != nil {
		return err
	}
	defer st.Close()
	ex, release, err := engine.ExecutorsLogging(engine.Options{Sandbox: a.Sandbox, GoEngine: goEngine, Warnings: s.err, Unconfined: a.Unconfined}, a.LogPrompts)
	if err != nil {
		return fromBelow(err)
	}
	defer release()
	ctx, stop := interruptible()
	defer stop()
	view := views.NewEval(s.out, a.JSON, workDir(), a.Repeat)
	if _, err := evaluate.RunAll(ctx, evals, evaluate.Options{Store: st, Executors: ex, Secrets: a.SecretMap, Variants: a.Variants, Only: a.OnlyRE,
		Limit: a.Limit, Repeat: a.Repeat, Parallelism: a.Parallelism, Compile: lo.CompileOptions(parser), Sink: view,
		Baseline: a.Outputs.Baseline, JUnit: a.Outputs.JUnit, Report: a.Outputs.Report, Files: views.WriteEvalFiles}); err != nil {
		return failf("Eval failed", "%s.", trimStop(err.Error()))
	}
	return view.Done()
}
