package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime"
	"github.com/spf13/cobra"
)

func newPlanCommand(s streams) *cobra.Command {
	var f runFlags
	var jsonOut, detailed bool
	var out string
	cmd := &cobra.Command{
		Use:   "plan FLOW",
		Short: "Show what applying a flow would do",
		Long: `Plan compiles a flow (FLOW is a flow file or a directory holding one),
resolves its inputs, looks up the result cache and shows each step with its
stage and what apply would do with it:

  + run      the step would run
  = cached   its result is in the cache and would be reused
  ~ unknown  it depends on values known only at run time
  - skip     its when condition is already known to be false

It ends with the counts and the critical path. --out saves the plan, pinning
the flow's source and its inputs, for apply PLAN.json. With
--detailed-exitcode it exits 0 when no step would run, 1 on errors and 2 when
steps would run.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			secrets, err := f.secretValues()
			if err != nil {
				return err
			}
			given, diags, err := f.inputs.values()
			if err != nil {
				return err
			}
			l := newFlowLoader(s, f.registries)
			if err := l.check(diags); err != nil {
				return err
			}
			prog, err := l.compile(args[0])
			if err != nil {
				return err
			}
			vals, diags := prog.ResolveInputs(given)
			if err := l.check(diags); err != nil {
				return err
			}
			// Plan runs nothing: the executors give the cache keys of the
			// blocks whose results depend on more than their inputs.
			ex, release, err := executors(execOptions{sandbox: sandboxIsolated})
			if err != nil {
				return err
			}
			defer release()
			opts := runtime.Options{Inputs: vals, Secrets: secrets, Namespace: f.namespace, NoCache: f.noCache, Executors: ex,
				ResetCorruptMemory: f.resetMemory}
			if dir := f.stateDirFor(prog); dirExists(dir) {
				st, err := f.openState(prog)
				if err != nil {
					return err
				}
				defer st.Close()
				opts.Store = st
			}
			plan, diags := runtime.Plan(prog, opts)
			if err := l.check(diags); err != nil {
				return err
			}
			if out != "" {
				if err := writeSavedPlan(out, plan, f.namespace, f.noCache); err != nil {
					return err
				}
				defer fmt.Fprintf(s.err, "Saved the plan to %s; run it with: flowctl apply %s\n", out, out)
			}
			if jsonOut {
				if err := writeJSON(s.out, newJSONPlan(plan)); err != nil {
					return err
				}
			} else {
				writeHumanPlan(s.out, plan)
			}
			if detailed && plan.WouldRun() {
				return exitError{exitUsage}
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the plan as one JSON object")
	cmd.Flags().BoolVar(&detailed, "detailed-exitcode", false, "exit 2 when steps would run, 0 when none would")
	cmd.Flags().StringVar(&out, "out", "", "save the plan to this file for apply")
	return cmd
}

type jsonPlan struct {
	FormatVersion string `json:"format_version"`
	Flow          string `json:"flow"`
	// LLMCalls is the least number of model calls the run would make;
	// null when a for_each count is known only at run time.
	LLMCalls     *int           `json:"llm_calls"`
	Stages       [][]string     `json:"stages"`
	CriticalPath []string       `json:"critical_path"`
	Steps        []jsonPlanStep `json:"steps"`
}

type jsonPlanStep struct {
	Name      string   `json:"name"`
	Use       string   `json:"use"`
	Stage     int      `json:"stage"`
	Action    string   `json:"action"`
	Reason    string   `json:"reason,omitempty"`
	DependsOn []string `json:"depends_on"`
}

func newJSONPlan(plan *compiler.Plan) jsonPlan {
	p := plan.Program
	out := jsonPlan{
		FormatVersion: jsonFormatVersion,
		Flow:          p.Flow.Name,
		Stages:        [][]string{},
		CriticalPath:  compiler.Names(p.CriticalPath),
		Steps:         []jsonPlanStep{},
	}
	for _, st := range p.Stages {
		out.Stages = append(out.Stages, compiler.Names(st))
	}
	if n, known := plan.LLMCalls(); known {
		out.LLMCalls = &n
	}
	for _, s := range plan.Steps {
		out.Steps = append(out.Steps, jsonPlanStep{
			Name: s.Name, Use: s.Use, Stage: s.Stage, Action: string(s.Action), Reason: s.Reason,
			DependsOn: compiler.Names(s.Deps),
		})
	}
	return out
}

var actionSymbols = map[compiler.Action]string{
	compiler.ActionRun:     "+ run",
	compiler.ActionCached:  "= cached",
	compiler.ActionUnknown: "~ unknown",
	compiler.ActionSkip:    "- skip",
}

func writeHumanPlan(w io.Writer, plan *compiler.Plan) {
	p := plan.Program
	fmt.Fprintf(w, "Flow %q: %s in %s\n", p.Flow.Name, plural(len(p.Steps), "step", "steps"), plural(len(p.Stages), "stage", "stages"))
	byStep := map[*compiler.Step]*compiler.PlannedStep{}
	width := 0
	for _, s := range plan.Steps {
		byStep[s.Step] = s
		width = max(width, len(s.Name))
	}
	for i, stage := range p.Stages {
		fmt.Fprintf(w, "\nStage %d\n", i+1)
		for _, st := range stage {
			s := byStep[st]
			line := fmt.Sprintf("  %-10s %-*s  %s", actionSymbols[s.Action], width, s.Name, stepLabel(st))
			if len(st.Deps) > 0 {
				line += "  ← " + strings.Join(compiler.Names(st.Deps), ", ")
			}
			if s.Reason != "" {
				line += "  (" + s.Reason + ")"
			}
			fmt.Fprintln(w, strings.TrimRight(line, " "))
		}
	}
	n := plan.Counts()
	fmt.Fprintf(w, "\nPlan: %d to run, %d cached, %d unknown, %d to skip.\n",
		n[compiler.ActionRun], n[compiler.ActionCached], n[compiler.ActionUnknown], n[compiler.ActionSkip])
	if len(p.CriticalPath) > 0 {
		fmt.Fprintf(w, "Critical path: %s (%s)\n", strings.Join(compiler.Names(p.CriticalPath), " → "),
			plural(len(p.CriticalPath), "step", "steps"))
	}
	switch n, known := plan.LLMCalls(); {
	case !known:
		fmt.Fprintf(w, "LLM calls: at least %d, more for for_each steps known only at run time.\n", n)
	case n > 0:
		fmt.Fprintf(w, "LLM calls: %d (retries and re-asks add more).\n", n)
	}
}

func dirExists(dir string) bool {
	info, err := os.Stat(dir)
	return err == nil && info.IsDir()
}
