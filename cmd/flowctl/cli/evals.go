package cli

import (
	"errors"
	"strings"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/runtime/evaluate/baseline"
	"github.com/flowctl/flowctl/runtime/evaluate/result"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

// addEvalResults adds eval list, show ID and compare A B (results kept in
// the state) to root's eval command.
func addEvalResults(root *cobra.Command, s streams) {
	eval, _, _ := root.Find([]string{"eval"})
	for use, short := range map[string]string{"list": "List the evaluation results kept in the state, newest first", "show ID": "Show evaluation results kept in the state: each variant's scores and the gates (--json: every case)", "compare A B": "Compare two evaluation results, A the baseline: each score's difference, its interval and the cases that changed"} {
		var a arguments.EvalResults
		sub := &cobra.Command{Use: use, Short: short, RunE: func(_ *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			st, _, err := openStateOf(s, &a.State)
			if err != nil {
				return err
			}
			defer st.Close()
			view, cmp := views.NewEvals(s.out, a.JSON), (*result.Comparison)(nil)
			if a.Sub == "list" {
				rs, err := st.EvalResults("", 0)
				return errors.Join(err, view.List(rs))
			}
			r, err := st.EvalResult(a.IDs[len(a.IDs)-1])
			if err == nil && a.Sub == "compare" {
				if cmp, err = baseline.Compare(st, a.IDs[0], r.ID); err == nil {
					err = view.Compare(cmp)
				}
			} else if err == nil {
				err = view.Show(r, st.EvalCasesOf(r.ID))
			}
			if errors.Is(err, state.ErrEvalNotFound) || errors.Is(err, baseline.ErrNoBaseline) {
				return failf("Unknown results", "%s", sentence(err.Error()))
			} else if err != nil {
				return err
			}
			return views.WriteEvalFiles(a.JUnit, a.Report, r.Summarized(), cmp, st.EvalCasesOf(r.ID))
		}}
		a.Flags(strings.Fields(use)[0], sub.Flags())
		eval.AddCommand(sub)
	}
}
