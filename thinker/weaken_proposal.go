package thinker

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
)

// ProposalWeakenings are what a proposal weakens (Weakenings) in each flow
// it changes: its flow file and every flow file it writes that exists,
// each compiled as it is and as the proposal would make it (in a copy of
// the flow's directory with the proposal's files written in). A flow that
// does not compile, as it is or as proposed, cannot be compared: that is
// a WeakUnchecked weakening. The result is empty, not nil, when nothing is
// weakened.
func ProposalWeakenings(st *state.Store, p *state.Proposal, registries []string) ([]state.Weakening, error) {
	base, err := filepath.Abs(ProposalBase(st))
	if err != nil {
		return nil, err
	}
	contents := map[string]string{} // absolute path: proposed content
	flows := map[string]bool{}
	for _, f := range p.Files {
		path := filepath.Join(base, filepath.FromSlash(f.Path))
		contents[path] = f.Content
		if strings.HasSuffix(path, ".flow.hcl") && f.BaseSHA256 != "" {
			flows[path] = true
		}
	}
	if p.FlowFile != "" {
		if path, err := filepath.Abs(p.FlowFile); err == nil {
			if _, err := os.Stat(path); err == nil {
				flows[path] = true
			}
		}
	}
	var order []string
	for f := range flows {
		order = append(order, f)
	}
	sort.Strings(order)
	out := []state.Weakening{}
	for _, file := range order {
		w, err := flowWeakenings(base, file, contents, registries)
		if err != nil {
			return nil, err
		}
		out = append(out, w...)
	}
	return out, nil
}

// flowWeakenings compares one flow file as it is with the flow as the
// proposal's contents would make it.
func flowWeakenings(base, file string, contents map[string]string, registries []string) ([]state.Weakening, error) {
	rel, err := RelTo(base, file)
	if err != nil {
		return nil, err
	}
	rel = filepath.ToSlash(rel)
	unchecked := func(how string) []state.Weakening {
		return []state.Weakening{{Kind: WeakUnchecked, Flow: rel, Subject: fmt.Sprintf("file %q", rel),
			Message: fmt.Sprintf("The flow %s does not compile, so what the proposal changes in it could not be checked.", how)}}
	}
	was, diags := compiler.Compile(file, compiler.Options{Parser: lang.NewParser(), RegistryDirs: registries, SkipCode: true})
	if diags.HasErrors() {
		return unchecked("as it is"), nil
	}
	tmp, err := os.MkdirTemp("", "flowctl-proposal-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	from, to := filepath.Dir(file), filepath.Join(tmp, "flow")
	if err := copyFlowDir(from, to); err != nil {
		return nil, fmt.Errorf("copying the flow's directory: %w", err)
	}
	for path, content := range contents {
		r, err := filepath.Rel(from, path)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			continue // outside the flow's directory
		}
		if err := writeFile(filepath.Join(to, r), []byte(content)); err != nil {
			return nil, err
		}
	}
	// A registry inside the flow's directory is read from the copy.
	regs := make([]string, len(registries))
	for i, r := range registries {
		regs[i] = r
		if abs, err := filepath.Abs(r); err == nil {
			if in, err := filepath.Rel(from, abs); err == nil && in != ".." && !strings.HasPrefix(in, ".."+string(filepath.Separator)) {
				regs[i] = filepath.Join(to, in)
			}
		}
	}
	is, diags := compiler.Compile(filepath.Join(to, filepath.Base(file)), compiler.Options{Parser: lang.NewParser(), RegistryDirs: regs, SkipCode: true})
	if diags.HasErrors() {
		return unchecked("as proposed"), nil
	}
	return Weakenings(rel, was, is), nil
}
