package lsp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
	"go.lsp.dev/protocol"
)

// maxHintType is how much of a type an inlay hint shows.
const maxHintType = 60

func (s *Server) inlayHints(ctx context.Context, p inlayHintParams) ([]inlayHint, error) {
	v := s.view(p.TextDocument.URI)
	out := []inlayHint{}
	if v.flow == nil || v.flow.prog == nil {
		return out, nil
	}
	from, to := v.offset(p.Range.Start), v.offset(p.Range.End)
	for _, st := range v.flow.prog.Steps {
		if st.Block == nil || st.UseRange.Filename == "" || st.UseRange.End.Byte < from || st.UseRange.Start.Byte > to {
			continue
		}
		var parts []string
		for _, o := range st.Outputs {
			t := typeName(outputType(st, o))
			if len(t) > maxHintType {
				t = t[:maxHintType-1] + "…"
			}
			parts = append(parts, o.Name+": "+t)
		}
		label := "→ " + strings.Join(parts, ", ")
		if st.ForEach != nil {
			label = "→ each { " + strings.Join(parts, ", ") + " }"
		}
		out = append(out, inlayHint{
			Position: v.text.position(st.UseRange.End.Byte), Label: label, Kind: inlayHintKindType,
			PaddingLeft: true, Tooltip: "The outputs of step " + st.Name + " (block " + st.Block.Name + ")",
		})
	}
	return out, nil
}

func (s *Server) codeLens(ctx context.Context, p protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	v := s.view(p.TextDocument.URI)
	out := []protocol.CodeLens{}
	if v.flow == nil || v.flow.prog == nil || v.file == nil {
		return out, nil
	}
	prog := v.flow.prog
	counts := map[string]int{}
	for _, o := range flowOccurrences(v.file) {
		if o.kind == kindStep && !o.decl {
			counts[o.name]++
		}
	}
	s.testSymbols("", func(sym *symbol, _ occurrence) {
		if sym.kind == kindStep && sym.flow == v.path {
			counts[sym.name]++
		}
	})
	last := s.lastRun(v.path, prog)
	for _, st := range prog.Steps {
		r := v.text.rng(st.DeclRange)
		n := counts[st.Name]
		title := fmt.Sprintf("%d references", n)
		if n == 1 {
			title = "1 reference"
		}
		out = append(out, protocol.CodeLens{Range: r, Command: &protocol.Command{Title: title, Command: ""}})
		if res, ok := last[st.Name]; ok {
			out = append(out, protocol.CodeLens{Range: r, Command: &protocol.Command{Title: res, Command: ""}})
		}
	}
	return out, nil
}

// lastRun is, per step, what the flow's newest recorded run says of it:
// "ok 120 ms", "failed: …" (for_each steps: the instances' counts).
func (s *Server) lastRun(path string, prog *compiler.Program) map[string]string {
	st := s.ws.store(path)
	if st == nil || prog.Flow == nil {
		return nil
	}
	run, err := st.LatestRun(prog.Flow.Name, "", "")
	if err != nil || run == nil {
		return nil
	}
	results, err := st.Steps(run.ID)
	if err != nil {
		s.log.Printf("reading run %s: %v", run.ID, err)
		return nil
	}
	byStep := map[string][]*state.StepResult{}
	for _, r := range results {
		byStep[r.Step] = append(byStep[r.Step], r)
	}
	out := map[string]string{}
	for name, rs := range byStep {
		out[name] = "last run: " + summarize(rs)
	}
	return out
}

func summarize(rs []*state.StepResult) string {
	if len(rs) == 1 {
		r := rs[0]
		switch {
		case r.Status == "failed" && r.Error != "":
			msg := r.Error
			if len(msg) > 80 {
				msg = msg[:79] + "…"
			}
			return "failed: " + msg
		case !r.StartedAt.IsZero() && !r.FinishedAt.IsZero():
			return r.Status + " " + duration(r.FinishedAt.Sub(r.StartedAt))
		}
		return r.Status
	}
	counts := map[string]int{}
	var first, lastEnd time.Time
	for _, r := range rs {
		counts[r.Status]++
		if !r.StartedAt.IsZero() && (first.IsZero() || r.StartedAt.Before(first)) {
			first = r.StartedAt
		}
		if r.FinishedAt.After(lastEnd) {
			lastEnd = r.FinishedAt
		}
	}
	var parts []string
	for _, status := range []string{"ok", "cached", "failed", "skipped", "cancelled"} {
		if counts[status] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[status], status))
		}
	}
	s := strings.Join(parts, ", ")
	if !first.IsZero() && !lastEnd.IsZero() {
		s += " in " + duration(lastEnd.Sub(first))
	}
	return s
}

func duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}
