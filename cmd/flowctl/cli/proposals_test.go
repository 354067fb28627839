package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/thinker"
)

const gatedFlow = `flow "publish" {}

step "check" {
  use     = "approval"
  message = "Publish it?"
}

step "publish" {
  use        = "value"
  value      = "published"
  depends_on = [step.check]
}
`

// ungatedFlow is gatedFlow without its approval.
const ungatedFlow = `flow "publish" {}

step "publish" {
  use   = "value"
  value = "published"
}
`

// stageGated stages, in the state next to gatedFlow, a proposal that
// writes content over it, as think --edit does; the flow file is back to
// gatedFlow.
func stageGated(t *testing.T, dir, content string) (string, *state.Store) {
	t.Helper()
	flow := filepath.Join(dir, "publish.flow.hcl")
	writeFile(t, flow, gatedFlow)
	st, err := state.Open(filepath.Join(dir, ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	id, err := thinker.StageProposal(st, &thinker.Proposal{Flow: "publish", FlowFile: flow, Intent: "publish at once",
		Files: []thinker.ProposedFile{{Path: flow, Base: []byte(gatedFlow), Content: []byte(content)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return id, st
}

// TestProposalsAcceptWeakening: a proposal that removes an approval says
// so in proposals list and show (and --json), and accept writes it only
// with --auto-approve: without a terminal to ask on, or with --json, it
// refuses (exit 1) and writes nothing. One that weakens nothing is
// accepted as before. think --edit --accept leaves a weakening proposal
// staged.
func TestProposalsAcceptWeakening(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	flow := filepath.Join(dir, "publish.flow.hcl")
	id, _ := stageGated(t, dir, ungatedFlow)

	code, out, _ := runCLI(t, "proposals")
	if code != 0 || !strings.Contains(out, "WEAKENS approval: publish at once") {
		t.Errorf("proposals: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "proposals", "show", id)
	if code != 0 || !strings.Contains(out, "WARNING: this change weakens the flow's safeguards:") ||
		!strings.Contains(out, `- publish.flow.hcl: The approval step "check" is removed.`) || strings.Contains(out, "\x1b[") {
		t.Errorf("proposals show: exit %d\n%s", code, out)
	}
	var shown struct {
		Weakens    bool              `json:"weakens"`
		Weakenings []state.Weakening `json:"weakenings"`
	}
	code, out, _ = runCLI(t, "proposals", "show", id, "--json")
	if err := json.Unmarshal([]byte(out), &shown); err != nil || code != 0 || !shown.Weakens || len(shown.Weakenings) != 1 || shown.Weakenings[0].Kind != "approval" {
		t.Errorf("proposals show --json: exit %d %v\n%s", code, err, out)
	}

	for _, args := range [][]string{{"proposals", "accept", id}, {"proposals", "accept", id, "--json"}} {
		code, out, errOut := runCLI(t, args...)
		if code != 1 || !strings.Contains(out+errOut, "Proposal weakens the flow") || !strings.Contains(out+errOut, "--auto-approve") {
			t.Errorf("%s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		if b, _ := os.ReadFile(flow); string(b) != gatedFlow {
			t.Fatalf("%s wrote the flow", strings.Join(args, " "))
		}
	}
	if code, _, errOut := runCLI(t, "proposals", "accept", id, "--auto-approve"); code != 0 {
		t.Fatalf("accept --auto-approve: exit %d\n%s", code, errOut)
	}
	if b, _ := os.ReadFile(flow); string(b) != ungatedFlow {
		t.Errorf("accept --auto-approve did not write the flow:\n%s", b)
	}

	harmless, _ := stageGated(t, dir, strings.Replace(gatedFlow, "Publish it?", "Publish the text?", 1))
	if code, _, errOut := runCLI(t, "proposals", "accept", harmless); code != 0 {
		t.Errorf("accepting a proposal that weakens nothing: exit %d\n%s", code, errOut)
	}

	weak, st := stageGated(t, dir, ungatedFlow)
	// On a terminal: the list, then only 'yes' goes on.
	p, err := st.Proposal(weak)
	if err != nil {
		t.Fatal(err)
	}
	for _, answer := range []string{"y\n", "no\n", ""} {
		var out, errOut strings.Builder
		err := confirmWeakenings(streams{in: strings.NewReader(answer), out: &out, err: &errOut}, st, p, false, true)
		if err == nil || !strings.Contains(out.String(), `The approval step "check" is removed.`) || !strings.Contains(out.String(), "Only 'yes' will be accepted") ||
			!strings.Contains(errOut.String(), "Accept cancelled: nothing was written.") {
			t.Errorf("answer %q: %v\n%s%s", answer, err, out.String(), errOut.String())
		}
	}
	if err := confirmWeakenings(streams{in: strings.NewReader("yes\n"), out: &strings.Builder{}, err: &strings.Builder{}}, st, p, false, true); err != nil {
		t.Errorf("answer yes: %v", err)
	}
	var errOut strings.Builder
	err = settleProposal(context.Background(), streams{out: &strings.Builder{}, err: &errOut}, bufio.NewReader(strings.NewReader("")), st, weak, true, false)
	if err == nil || !strings.Contains(errOut.String(), "it weakens the flow, so --accept does not write it") {
		t.Errorf("think --edit --accept of a weakening: %v\n%s", err, errOut.String())
	}
	if b, _ := os.ReadFile(flow); string(b) != gatedFlow {
		t.Error("think --edit --accept wrote a weakening")
	}
}
