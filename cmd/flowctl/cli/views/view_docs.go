package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/flowctl/flowctl/compiler/flowdoc"
)

// WriteDocsMarkdown renders the documentation of flows and blocks as
// Markdown: a section per flow, then one per block.
func WriteDocsMarkdown(w io.Writer, d *Docs) {
	fmt.Fprintln(w, "<!-- Written by flowctl docs from the flows and blocks; edit those, not this file. -->")
	if len(d.Flows) > 0 {
		fmt.Fprint(w, "\n# Flows\n")
	}
	for _, f := range d.Flows {
		fmt.Fprintf(w, "\n## %s\n\n`%s` · %s\n", f.Name, f.File, Plural(f.Steps, "step", "steps"))
		if f.Description != "" {
			fmt.Fprintf(w, "\n%s\n", f.Description)
		}
		var rows [][]string
		for _, in := range f.Inputs {
			rows = append(rows, []string{code(in.Name), code(in.Type), defaultCell(in.Default), yesNo(in.Required), yesNo(in.Sensitive), in.Description})
		}
		mdTable(w, "Inputs", true, []string{"name", "type", "default", "required", "sensitive", "description"}, rows)
		rows = nil
		for _, o := range f.Outputs {
			rows = append(rows, []string{code(o.Name), code(o.Type), yesNo(o.Sensitive), o.Description})
		}
		mdTable(w, "Outputs", true, []string{"name", "type", "sensitive", "description"}, rows)
		rows = nil
		for _, s := range f.Secrets {
			rows = append(rows, []string{code(s.Name), code(s.Env), s.Description})
		}
		mdTable(w, "Secrets", false, []string{"name", "environment variable", "description"}, rows)
		rows = nil
		for _, p := range f.Providers {
			limits := []string{}
			for _, l := range []struct {
				name string
				n    int
			}{{"rpm", p.RPM}, {"tpm", p.TPM}, {"concurrency", p.Concurrency}} {
				if l.n > 0 {
					limits = append(limits, fmt.Sprintf("%s %d", l.name, l.n))
				}
			}
			rows = append(rows, []string{code(p.Name), code(p.BaseURL), codeOrNone(p.APIKey), strings.Join(limits, ", "),
				codeOrNone(strings.Join(p.Steps, "`, `")), p.Description})
		}
		mdTable(w, "Providers", false, []string{"name", "base_url", "api_key", "limits", "steps", "description"}, rows)
		rows = nil
		for _, c := range f.Collections {
			rows = append(rows, []string{code(c.Name), fmt.Sprint(c.Dimensions), c.Distance, codeOrNone(strings.Join(c.Steps, "`, `")), c.Description})
		}
		mdTable(w, "Collections", false, []string{"name", "dimensions", "distance", "steps", "description"}, rows)
		rows = nil
		for _, b := range f.Blocks {
			where := "built-in"
			if b.DefinedIn != "" {
				where = code(b.DefinedIn)
			}
			rows = append(rows, []string{code(b.Name), b.Runtime, where, code(strings.Join(b.Steps, "`, `")), b.Description})
		}
		mdTable(w, "Blocks used", true, []string{"block", "runtime", "defined in", "steps", "description"}, rows)
		rows = nil
		for _, s := range f.Schedules {
			rows = append(rows, []string{code(s.Name), code(s.Cron), s.Timezone})
		}
		mdTable(w, "Schedules", false, []string{"name", "cron", "time zone"}, rows)
		rows = nil
		for _, t := range f.Triggers {
			if t.Path != "" {
				rows = append(rows, []string{code(t.Name), code(t.Method + " " + t.Path), "verify " + code(t.Verify) + ", respond " + code(t.Respond)})
			} else {
				rows = append(rows, []string{code(t.Name), "a run of " + code(t.After) + " that ends " + strings.Join(t.Status, " or "), "—"})
			}
		}
		mdTable(w, "Triggers", false, []string{"name", "starts on", "answer"}, rows)
		rows = nil
		for _, l := range f.Limits {
			n := ""
			if l.Limit > 0 {
				n = fmt.Sprint(l.Limit)
			}
			rows = append(rows, []string{code(l.Kind), code(l.Key), n, l.Period})
		}
		if len(rows) > 0 {
			mdTable(w, "Limits", false, []string{"limit", "key", "at most", "period"}, rows)
		}
		rows = nil
		for _, a := range f.Approvals {
			rows = append(rows, []string{code(a.Step), a.Message})
		}
		mdTable(w, "Approvals", false, []string{"step", "message"}, rows)
		fmt.Fprintf(w, "\n### Steps\n\n```mermaid\n%s```\n", f.Mermaid)
		fmt.Fprint(w, "\n### Tests\n\n")
		if len(f.Tests) == 0 {
			fmt.Fprintln(w, "None.")
		}
		for _, t := range f.Tests {
			fmt.Fprintf(w, "- %s (`%s`)\n", t.Name, t.File)
		}
	}
	if len(d.Blocks) > 0 {
		fmt.Fprint(w, "\n# Blocks\n")
	}
	for _, b := range d.Blocks {
		fmt.Fprintf(w, "\n## %s\n\n`%s` · runtime %s\n", b.Name, b.File, b.Runtime)
		for _, p := range []struct{ prefix, text string }{{"", b.Description}, {"Use when: ", b.UseWhen}, {"Tags: ", strings.Join(b.Tags, ", ")},
			{"Dependencies (pinned by flowctl lock): ", codes(b.Dependencies)}} {
			if p.text != "" {
				fmt.Fprintf(w, "\n%s%s\n", p.prefix, p.text)
			}
		}
		var rows [][]string
		for _, in := range b.Inputs {
			rows = append(rows, []string{code(in.Name), code(in.Type), defaultCell(in.Default), yesNo(in.Required), in.Description})
		}
		mdTable(w, "Inputs", true, []string{"name", "type", "default", "required", "description"}, rows)
		rows = nil
		for _, o := range b.Outputs {
			rows = append(rows, []string{code(o.Name), code(o.Type), o.Description})
		}
		mdTable(w, "Outputs", true, []string{"name", "type", "description"}, rows)
		if len(b.Examples) > 0 {
			fmt.Fprint(w, "\n### Examples\n")
			for _, ex := range b.Examples {
				fmt.Fprintf(w, "\n```hcl\ninput  = %s\noutput = %s\n```\n", ex.Input, ex.Output)
			}
		}
	}
}

// mdTable writes a section with a table of rows (cells escaped); with
// none set, an empty one says "None.", else it is left out.
func mdTable(w io.Writer, title string, none bool, header []string, rows [][]string) {
	if len(rows) == 0 {
		if none {
			fmt.Fprintf(w, "\n### %s\n\nNone.\n", title)
		}
		return
	}
	fmt.Fprintf(w, "\n### %s\n\n| %s |\n|%s\n", title, strings.Join(header, " | "), strings.Repeat(" --- |", len(header)))
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = strings.ReplaceAll(strings.ReplaceAll(c, "|", "\\|"), "\n", " ")
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

func code(s string) string { return "`" + s + "`" }

func defaultCell(d *string) string {
	if d == nil {
		return ""
	}
	return code(*d)
}

// codeOrNone is s as code, or an empty cell.
func codeOrNone(s string) string {
	if s == "" {
		return ""
	}
	return code(s)
}

// The documentation of flows and blocks is flowdoc's (flowdoc.Collect);
// a view writes it. Its types, by the names the views use:
type (
	// Docs is the documentation of flows and blocks (docs --format json
	// prints it).
	Docs = flowdoc.Docs
	// FlowDoc is a flow's documentation.
	FlowDoc = flowdoc.Flow
	// FieldDoc is an input or output of a flow or block.
	FieldDoc = flowdoc.Field
	// ProviderDoc is an llm provider a flow declares.
	ProviderDoc = flowdoc.Provider
	// SecretDoc is a secret a flow reads.
	SecretDoc = flowdoc.Secret
	// UsedBlockDoc is a block a flow's steps use.
	UsedBlockDoc = flowdoc.UsedBlock
	// ScheduleDoc is a flow's schedule.
	ScheduleDoc = flowdoc.Schedule
	// TriggerDoc is a flow's trigger.
	TriggerDoc = flowdoc.Trigger
	// ApprovalDoc is a step that waits for approval.
	ApprovalDoc = flowdoc.Approval
	// TestDoc is a test that runs a flow.
	TestDoc = flowdoc.Test
	// BlockDoc is the documentation of a block.
	BlockDoc = flowdoc.Block
	// ExampleDoc is an example of a block.
	ExampleDoc = flowdoc.Example
)

// codes is a list of words as code, comma separated; "" for none.
func codes(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = code(w)
	}
	return strings.Join(out, ", ")
}
