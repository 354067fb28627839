package lsp

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"go.lsp.dev/protocol"
)

func (s *Server) codeAction(ctx context.Context, p protocol.CodeActionParams) ([]protocol.CodeAction, error) {
	v := s.view(p.TextDocument.URI)
	out := []protocol.CodeAction{}
	uri := p.TextDocument.URI
	edit := func(edits ...protocol.TextEdit) *protocol.WorkspaceEdit {
		return &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{uri: edits}}
	}
	for _, d := range p.Context.Diagnostics {
		diag := d
		switch {
		case didYouMean(d.Message) != "":
			want := didYouMean(d.Message)
			from, to := v.offset(d.Range.Start), v.offset(d.Range.End)
			if from > to || to > len(v.text.src) {
				continue
			}
			out = append(out, protocol.CodeAction{
				Title: fmt.Sprintf("Change to %q", want), Kind: protocol.QuickFix, IsPreferred: true,
				Diagnostics: []protocol.Diagnostic{diag},
				Edit:        edit(protocol.TextEdit{Range: d.Range, NewText: replacement(string(v.text.src[from:to]), want)}),
			})
		case strings.HasPrefix(d.Message, "Missing required input") && v.flow != nil:
			if a := v.addMissingArguments(d); a != nil {
				a.Edit = edit(a.Edit.Changes[""]...)
				out = append(out, *a)
			}
		case strings.HasPrefix(d.Message, "Unknown secret"), strings.HasPrefix(d.Message, "Unknown input"):
			if a := v.declare(d); a != nil {
				a.Edit = edit(a.Edit.Changes[""]...)
				out = append(out, *a)
			}
		}
	}
	if a := v.extractLocal(p.Range); a != nil && len(p.Context.Diagnostics) == 0 {
		a.Edit = edit(a.Edit.Changes[""]...)
		out = append(out, *a)
	}
	if formatted, d := lang.Format(v.text.src, v.path); !d.HasErrors() && string(formatted) != string(v.text.src) {
		out = append(out, protocol.CodeAction{
			Title: "Run flowctl fmt", Kind: protocol.Source,
			Edit: edit(protocol.TextEdit{Range: v.text.span(0, len(v.text.src)), NewText: string(formatted)}),
		})
	}
	return out, nil
}

// replacement is the text that replaces the text a "Did you mean"
// diagnostic covers: a quoted name keeps its quotes, a reference its
// root (input.topc → input.topic).
func replacement(old, want string) string {
	switch {
	case strings.HasPrefix(old, `"`):
		return `"` + want + `"`
	case strings.Contains(old, "."):
		return old[:strings.LastIndex(old, ".")+1] + want
	}
	return want
}

// local edits are built against the document ("" in Changes) and given
// the document's URI by codeAction.
func localEdit(title string, kind protocol.CodeActionKind, diag *protocol.Diagnostic, edits ...protocol.TextEdit) *protocol.CodeAction {
	a := &protocol.CodeAction{Title: title, Kind: kind, Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{"": edits}}}
	if diag != nil {
		a.Diagnostics = []protocol.Diagnostic{*diag}
	}
	return a
}

// addMissingArguments adds a step's missing required inputs, each with a
// value of its type to start from, before the step's closing brace.
func (v *view) addMissingArguments(d protocol.Diagnostic) *protocol.CodeAction {
	c := locate(v.file, v.offset(d.Range.Start))
	if c.block == nil || c.block.Type != kindStep || v.flow.prog == nil {
		return nil
	}
	st := v.flow.prog.StepsByName[c.blockName()]
	if st == nil || st.Block == nil {
		return nil
	}
	var lines []string
	for _, in := range st.Block.Inputs {
		if in.Required() && st.Arg(in.Name) == nil && !lang.IsMetaArgument(in.Name) {
			lines = append(lines, "  "+in.Name+" = "+placeholder(in.Type.Type, false)+"\n")
		}
	}
	if len(lines) == 0 {
		return nil
	}
	end := c.block.CloseBraceRange.Start.Byte
	at := end
	for at > 0 && v.text.src[at-1] != '\n' {
		at--
	}
	text := strings.Join(lines, "")
	if strings.TrimSpace(string(v.text.src[at:end])) != "" || at <= c.block.OpenBraceRange.Start.Byte {
		at, text = end, "\n"+text // step "x" { use = "y" } on one line
	}
	return localEdit("Add the missing required arguments", protocol.QuickFix, &d,
		protocol.TextEdit{Range: v.text.span(at, at), NewText: text})
}

// declare declares the secret or input a reference names, after the last
// block of that kind (or after the flow block).
func (v *view) declare(d protocol.Diagnostic) *protocol.CodeAction {
	body, ok := v.file.Body.(*hclsyntax.Body)
	if !ok || v.flow == nil {
		return nil
	}
	from, to := v.offset(d.Range.Start), v.offset(d.Range.End)
	ref := string(v.text.src[from:to])
	kind, name, ok := strings.Cut(ref, ".")
	if !ok || (kind != kindSecret && kind != kindInput) || !lang.ValidName(name) {
		return nil
	}
	at := 0
	for _, b := range body.Blocks {
		if b.Type == kind || (at == 0 && b.Type == "flow") || b.Type == kindInput && kind == kindSecret {
			at = b.Range().End.Byte
		}
	}
	decl := fmt.Sprintf("\n\n%s %q {}", kind, name)
	if kind == kindInput {
		decl = fmt.Sprintf("\n\ninput %q {\n  type = string\n}", name)
	}
	if at == 0 {
		decl = strings.TrimPrefix(decl, "\n\n") + "\n\n"
	}
	return localEdit(fmt.Sprintf("Declare %s %q", kind, name), protocol.QuickFix, &d,
		protocol.TextEdit{Range: v.text.span(at, at), NewText: decl})
}

// extractLocal moves the selected expression of a step's argument into a
// new local and refers to it there.
func (v *view) extractLocal(r protocol.Range) *protocol.CodeAction {
	from, to := v.offset(r.Start), v.offset(r.End)
	if v.flow == nil || to <= from || v.file == nil {
		return nil
	}
	sel := strings.TrimSpace(string(v.text.src[from:to]))
	if sel == "" {
		return nil
	}
	c := locate(v.file, from)
	if c.block == nil || c.attr == nil || c.onName || !within(c.attr.Expr.Range(), from) || !within(c.attr.Expr.Range(), to) {
		return nil
	}
	if _, d := hclsyntax.ParseExpression([]byte(sel), "selection", hcl.InitialPos); d.HasErrors() {
		return nil
	}
	name := "extracted"
	if v.flow.prog != nil && v.flow.prog.LocalsByName != nil {
		for i := 2; v.flow.prog.LocalsByName[name] != nil; i++ {
			name = fmt.Sprintf("extracted_%d", i)
		}
	}
	body := v.file.Body.(*hclsyntax.Body)
	var edits []protocol.TextEdit
	var locals *hclsyntax.Block
	for _, b := range body.Blocks {
		if b.Type == "locals" {
			locals = b
		}
	}
	if locals != nil {
		at := locals.CloseBraceRange.Start.Byte
		edits = append(edits, protocol.TextEdit{Range: v.text.span(at, at), NewText: "  " + name + " = " + sel + "\n"})
	} else {
		at := c.block.Range().Start.Byte
		edits = append(edits, protocol.TextEdit{Range: v.text.span(at, at), NewText: "locals {\n  " + name + " = " + sel + "\n}\n\n"})
	}
	edits = append(edits, protocol.TextEdit{Range: v.text.span(from, to), NewText: "local." + name})
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].Range.Start.Line < edits[j].Range.Start.Line })
	return localEdit("Extract into local."+name, protocol.RefactorExtract, nil, edits...)
}

func (s *Server) formatting(ctx context.Context, p protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	path := pathOf(p.TextDocument.URI)
	t := s.textFor(path)
	out, d := lang.Format(t.src, path)
	if d.HasErrors() {
		return nil, fmt.Errorf("the file does not parse, so it is not formatted: %s", lang.ErrorSentence(d, true))
	}
	if string(out) == string(t.src) {
		return []protocol.TextEdit{}, nil
	}
	return []protocol.TextEdit{{Range: t.span(0, len(t.src)), NewText: string(out)}}, nil
}
