package cli

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/spf13/cobra"
)

func newPatternsCommand(s streams) *cobra.Command {
	var f stateFlags
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "patterns [list | show ID | forget ID] [--json]",
		Short: "List, show or forget the flows that worked, which think reuses",
		Long: `Patterns are the flows that worked: recorded when think writes a flow that
validates and when a proposal (of think --edit or explain) is accepted, with
the intent, the flow's source and its blocks, and how its runs and tests
have done since. think searches them before decomposing: a close one whose
blocks are all in the registry is the plan and the worked example of the
new flow ("based on pattern NAME"); a pattern whose flow fails its runs or
tests is ranked down. An ID may be a name or a unique prefix.`,
		Args: cobra.RangeArgs(0, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			sub, id, err := recordSubcommand("patterns", "pattern", args, "show", "forget")
			if err != nil {
				return err
			}
			st, _, err := f.open(s)
			if err != nil {
				return err
			}
			defer st.Close()
			if sub == "list" {
				ps, err := st.Patterns()
				if err != nil {
					return err
				}
				if jsonOut {
					out := []jsonPattern{}
					for _, p := range ps {
						out = append(out, newJSONPattern(p, false))
					}
					return writeJSON(s.out, out)
				}
				return listPatterns(s.out, ps)
			}
			p, err := st.Pattern(id)
			if err != nil {
				if errors.Is(err, state.ErrPatternNotFound) {
					return failf("Unknown pattern", "%s", sentence(err.Error()))
				}
				return err
			}
			if sub == "forget" {
				if err := st.ForgetPattern(p.ID); err != nil {
					return err
				}
				if !jsonOut {
					fmt.Fprintf(s.out, "Forgot pattern %s (%s).\n", p.ID, p.Name)
					return nil
				}
			}
			if jsonOut {
				return writeJSON(s.out, newJSONPattern(p, true))
			}
			fmt.Fprintf(s.out, "Pattern %s (%s) from %s, of flow %q (%s)\nIntent: %s\nRecord since %s: %d runs ok, %d failed; %d tests passed, %d failed; used %d times\n\n%s",
				p.ID, p.Name, p.Origin, p.Flow, p.FlowFile, p.Intent, p.Updated.Local().Format("2006-01-02 15:04"),
				p.RunsOK, p.RunsFailed, p.TestPasses, p.TestFailures, p.Used, p.Source)
			for _, b := range p.Blocks {
				if b.Source != "" {
					fmt.Fprintf(s.out, "\n# %s\n%s", b.Path, b.Source)
				}
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	return cmd
}

func listPatterns(w io.Writer, ps []*state.Pattern) error {
	if len(ps) == 0 {
		fmt.Fprintln(w, "No patterns.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PATTERN\tNAME\tFROM\tRUNS OK/FAILED\tTESTS OK/FAILED\tUSED\tINTENT")
	for _, p := range ps {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%d/%d\t%d\t%s\n", p.ID, p.Name, p.Origin, p.RunsOK, p.RunsFailed, p.TestPasses, p.TestFailures, p.Used, cut(firstLine(p.Intent), 60))
	}
	return tw.Flush()
}

type jsonPattern struct {
	ID           string               `json:"id"`
	Name         string               `json:"name"`
	Intent       string               `json:"intent"`
	Flow         string               `json:"flow"`
	FlowFile     string               `json:"flow_file"`
	Origin       string               `json:"origin"`
	Created      string               `json:"created_at"`
	Updated      string               `json:"updated_at"`
	Used         int                  `json:"used"`
	RunsOK       int                  `json:"runs_ok"`
	RunsFailed   int                  `json:"runs_failed"`
	TestPasses   int                  `json:"test_passes"`
	TestFailures int                  `json:"test_failures"`
	Source       string               `json:"source,omitempty"`
	Blocks       []state.PatternBlock `json:"blocks,omitempty"`
}

func newJSONPattern(p *state.Pattern, whole bool) jsonPattern {
	j := jsonPattern{ID: p.ID, Name: p.Name, Intent: p.Intent, Flow: p.Flow, FlowFile: p.FlowFile, Origin: p.Origin,
		Created: jsonTime(p.Created), Updated: jsonTime(p.Updated), Used: p.Used, RunsOK: p.RunsOK, RunsFailed: p.RunsFailed,
		TestPasses: p.TestPasses, TestFailures: p.TestFailures}
	if whole {
		j.Source, j.Blocks = p.Source, p.Blocks
	}
	return j
}

type jsonPatternUsed struct {
	jsonHead
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Relevance float64 `json:"relevance"`
	// Similarity is the embeddings' cosine similarity; absent without them.
	Similarity float64  `json:"similarity,omitempty"`
	Blocks     []string `json:"blocks"`
}
