package cli

import (
	"fmt"
	"io"
	"strings"
)

// writeDocsMarkdown renders the documentation of flows and blocks as
// Markdown: a section per flow, then one per block.
func writeDocsMarkdown(w io.Writer, d *docsJSON) {
	fmt.Fprintln(w, "<!-- Written by flowctl docs from the flows and blocks; edit those, not this file. -->")
	if len(d.Flows) > 0 {
		fmt.Fprint(w, "\n# Flows\n")
	}
	for _, f := range d.Flows {
		fmt.Fprintf(w, "\n## %s\n\n`%s`", f.Name, f.File)
		fmt.Fprintf(w, " · %s\n", plural(f.Steps, "step", "steps"))
		if f.Description != "" {
			fmt.Fprintf(w, "\n%s\n", f.Description)
		}
		fmt.Fprint(w, "\n### Inputs\n\n")
		if len(f.Inputs) == 0 {
			fmt.Fprintln(w, "None.")
		} else {
			fmt.Fprintln(w, "| name | type | default | required | sensitive | description |\n| --- | --- | --- | --- | --- | --- |")
			for _, in := range f.Inputs {
				fmt.Fprintf(w, "| `%s` | `%s` | %s | %s | %s | %s |\n", in.Name, mdCell(in.Type), defaultCell(in.Default), yesNo(in.Required), yesNo(in.Sensitive), mdCell(in.Description))
			}
		}
		fmt.Fprint(w, "\n### Outputs\n\n")
		if len(f.Outputs) == 0 {
			fmt.Fprintln(w, "None.")
		} else {
			fmt.Fprintln(w, "| name | type | sensitive | description |\n| --- | --- | --- | --- |")
			for _, o := range f.Outputs {
				fmt.Fprintf(w, "| `%s` | `%s` | %s | %s |\n", o.Name, mdCell(o.Type), yesNo(o.Sensitive), mdCell(o.Description))
			}
		}
		if len(f.Secrets) > 0 {
			fmt.Fprint(w, "\n### Secrets\n\n| name | environment variable | description |\n| --- | --- | --- |\n")
			for _, s := range f.Secrets {
				fmt.Fprintf(w, "| `%s` | `%s` | %s |\n", s.Name, s.Env, mdCell(s.Description))
			}
		}
		fmt.Fprint(w, "\n### Blocks used\n\n")
		if len(f.Blocks) == 0 {
			fmt.Fprintln(w, "None.")
		} else {
			fmt.Fprintln(w, "| block | runtime | defined in | steps | description |\n| --- | --- | --- | --- | --- |")
			for _, b := range f.Blocks {
				where := "built-in"
				if b.DefinedIn != "" {
					where = "`" + b.DefinedIn + "`"
				}
				fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", b.Name, b.Runtime, where, "`"+strings.Join(b.Steps, "`, `")+"`", mdCell(b.Description))
			}
		}
		if len(f.Schedules) > 0 {
			fmt.Fprint(w, "\n### Schedules\n\n| name | cron | time zone |\n| --- | --- | --- |\n")
			for _, s := range f.Schedules {
				fmt.Fprintf(w, "| `%s` | `%s` | %s |\n", s.Name, s.Cron, s.Timezone)
			}
		}
		if len(f.Approvals) > 0 {
			fmt.Fprint(w, "\n### Approvals\n\n| step | message |\n| --- | --- |\n")
			for _, a := range f.Approvals {
				fmt.Fprintf(w, "| `%s` | %s |\n", a.Step, mdCell(a.Message))
			}
		}
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
		if b.Description != "" {
			fmt.Fprintf(w, "\n%s\n", b.Description)
		}
		if b.UseWhen != "" {
			fmt.Fprintf(w, "\nUse when: %s\n", b.UseWhen)
		}
		if len(b.Tags) > 0 {
			fmt.Fprintf(w, "\nTags: %s\n", strings.Join(b.Tags, ", "))
		}
		fmt.Fprint(w, "\n### Inputs\n\n")
		if len(b.Inputs) == 0 {
			fmt.Fprintln(w, "None.")
		} else {
			fmt.Fprintln(w, "| name | type | default | required | description |\n| --- | --- | --- | --- | --- |")
			for _, in := range b.Inputs {
				fmt.Fprintf(w, "| `%s` | `%s` | %s | %s | %s |\n", in.Name, mdCell(in.Type), defaultCell(in.Default), yesNo(in.Required), mdCell(in.Description))
			}
		}
		fmt.Fprint(w, "\n### Outputs\n\n")
		if len(b.Outputs) == 0 {
			fmt.Fprintln(w, "None.")
		} else {
			fmt.Fprintln(w, "| name | type | description |\n| --- | --- | --- |")
			for _, o := range b.Outputs {
				fmt.Fprintf(w, "| `%s` | `%s` | %s |\n", o.Name, mdCell(o.Type), mdCell(o.Description))
			}
		}
		if len(b.Examples) > 0 {
			fmt.Fprint(w, "\n### Examples\n")
			for _, ex := range b.Examples {
				fmt.Fprintf(w, "\n```hcl\ninput  = %s\noutput = %s\n```\n", ex.Input, ex.Output)
			}
		}
	}
}

func mdCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}

func defaultCell(d *string) string {
	if d == nil {
		return ""
	}
	return "`" + mdCell(*d) + "`"
}
