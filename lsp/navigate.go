package lsp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/creachadair/jrpc2"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"go.lsp.dev/protocol"
)

// symbol is a name that references, rename and definition follow: a
// kind, a name and the flow file that declares it ("" for a block, which
// the flows that see it share).
type symbol struct {
	kind string
	name string
	flow string
}

// errRequestFailed is LSP's RequestFailed: a request that was understood
// and refused (a rename to a name that is taken).
const errRequestFailed jrpc2.Code = -32803

// symbolAt is the symbol at off, with the occurrence it is at.
func (s *Server) symbolAt(v *view, off int) (*symbol, *occurrence) {
	if v.file == nil {
		return nil, nil
	}
	switch {
	case v.flow != nil, v.block != nil:
		for _, o := range flowOccurrences(v.file) {
			if within(o.rng, off) {
				return s.resolve(v.path, v.flowProg(), o), &o
			}
		}
	case v.test != nil:
		for name, occ := range testOccurrences(v.file) {
			for _, o := range occ {
				if !within(o.rng, off) {
					continue
				}
				for def, fc := range v.test.flows {
					if def.Name == name {
						return s.resolve(fc.path, fc.prog, o), &o
					}
				}
			}
		}
	}
	return nil, nil
}

func (v *view) flowProg() *compiler.Program {
	if v.flow != nil {
		return v.flow.prog
	}
	return nil
}

// resolve turns an occurrence of a flow file (or of a test of it) into
// the symbol it names.
func (s *Server) resolve(flow string, prog *compiler.Program, o occurrence) *symbol {
	switch o.kind {
	case kindStep, kindInput, kindSecret, kindLocal, kindMemory, kindOutput:
		if lang.IsBlockFile(flow) {
			return nil
		}
		return &symbol{kind: o.kind, name: o.name, flow: flow}
	case kindBlock:
		return &symbol{kind: kindBlock, name: o.name}
	case kindFlow:
		if f := s.flowFile(flow, o.name); f != "" {
			return &symbol{kind: kindFlow, name: o.name, flow: f}
		}
	case kindPath:
		if ts := stepAtPath(prog, o.owner); ts != nil {
			return &symbol{kind: kindStep, name: ts.Step.Name, flow: absolute(ts.Flow.Filename)}
		}
	case kindField, kindArg:
		if prog == nil {
			return nil
		}
		st := prog.StepsByName[o.owner]
		if ts := stepAtPath(prog, o.owner); ts != nil {
			st, flow = ts.Step, absolute(ts.Flow.Filename)
		}
		if st == nil || st.Flow == nil {
			if o.kind == kindField {
				return &symbol{kind: kindStep, name: st0(st, o.owner), flow: flow}
			}
			return nil
		}
		kind := kindOutput
		if o.kind == kindArg {
			kind = kindInput
		}
		return &symbol{kind: kind, name: o.name, flow: absolute(st.Flow.Filename)}
	}
	return nil
}

// st0 is the name of step st, else name.
func st0(st *compiler.Step, name string) string {
	if st != nil {
		return st.Name
	}
	return name
}

// stepAtPath is the step at a test's step path (summarize.ask: step ask
// of the flow step summarize uses) in the tree of flows prog runs; nil
// when the path names no step.
func stepAtPath(prog *compiler.Program, path string) *compiler.TreeStep {
	if prog == nil {
		return nil
	}
	for _, ts := range compiler.StepTree(prog) {
		if ts.Path == path {
			return ts
		}
	}
	return nil
}

// flowFile finds the file of the flow named name, as a step of the flow
// at from sees it: in its directory, then the registries.
func (s *Server) flowFile(from, name string) string {
	_, registries := s.config()
	for _, dir := range append([]string{filepath.Dir(from)}, registries...) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.flow.hcl"))
		sort.Strings(files)
		for _, f := range files {
			abs := absolute(f)
			if declaredFlowName(s, abs) == name {
				return abs
			}
		}
	}
	return ""
}

// textFor is a file's text: an open document's, else the file's.
func (s *Server) textFor(path string) *text {
	if d := s.overlay()[path]; d != nil {
		return d.text
	}
	src, _ := os.ReadFile(path)
	return newText(src)
}

func (s *Server) location(r hcl.Range) protocol.Location {
	path := absolute(r.Filename)
	return protocol.Location{URI: uriOf(path), Range: s.textFor(path).rng(r)}
}

func (s *Server) definition(ctx context.Context, p protocol.DefinitionParams) ([]protocol.Location, error) {
	v := s.view(p.TextDocument.URI)
	sym, _ := s.symbolAt(v, v.offset(p.Position))
	if sym == nil {
		return []protocol.Location{}, nil
	}
	if r := s.declaration(sym, v); r != nil {
		return []protocol.Location{s.location(*r)}, nil
	}
	return []protocol.Location{}, nil
}

// declaration is where a symbol is declared; nil for a built-in block.
func (s *Server) declaration(sym *symbol, v *view) *hcl.Range {
	if sym.kind == kindBlock {
		prog := v.flowProg()
		if prog == nil {
			if v.test != nil {
				prog = v.prog(0)
			}
		}
		if v.block != nil {
			for _, d := range v.block.defs {
				if d.Name == sym.name {
					return &d.NameRange
				}
			}
		}
		if prog != nil && prog.Registry != nil {
			if b := prog.Registry.Lookup(sym.name); b != nil && b.Def != nil {
				return &b.Def.NameRange
			}
		}
		return nil
	}
	fc := s.ws.flow(sym.flow)
	prog := fc.prog
	if prog == nil || prog.File == nil {
		return nil
	}
	switch sym.kind {
	case kindFlow:
		return &prog.Flow.NameRange
	case kindStep:
		if st := prog.StepsByName[sym.name]; st != nil {
			return &st.NameRange
		}
	case kindInput:
		if in := prog.InputsByName[sym.name]; in != nil {
			return &in.NameRange
		}
	case kindSecret:
		if x := prog.SecretsByName[sym.name]; x != nil {
			return &x.NameRange
		}
	case kindLocal:
		if x := prog.LocalsByName[sym.name]; x != nil {
			return &x.NameRange
		}
	case kindMemory:
		if x := prog.MemoriesByName[sym.name]; x != nil {
			return &x.NameRange
		}
	case kindOutput:
		if x := prog.OutputsByName[sym.name]; x != nil {
			return &x.NameRange
		}
	}
	return nil
}

func (s *Server) references(ctx context.Context, p protocol.ReferenceParams) ([]protocol.Location, error) {
	v := s.view(p.TextDocument.URI)
	sym, _ := s.symbolAt(v, v.offset(p.Position))
	out := []protocol.Location{}
	if sym == nil {
		return out, nil
	}
	for _, r := range s.occurrencesOf(sym, v) {
		if r.decl && !p.Context.IncludeDeclaration {
			continue
		}
		out = append(out, s.location(r.rng))
	}
	return out, nil
}

// place is an occurrence of a symbol in a file.
type place struct {
	rng  hcl.Range
	decl bool
}

// occurrencesOf finds every place a symbol stands: its flow file, the
// tests of the flow, and the flows that use it as a sub-flow (and their
// tests); for a block, every flow that sees the same definition.
func (s *Server) occurrencesOf(sym *symbol, v *view) []place {
	var out []place
	seen := map[hcl.Range]bool{}
	add := func(r hcl.Range, decl bool) {
		if r.Filename == "" || seen[r] {
			return
		}
		seen[r] = true
		out = append(out, place{rng: r, decl: decl})
	}
	files := s.ws.filesLocked()
	if sym.kind == kindBlock {
		decl := s.declaration(sym, v)
		if decl != nil {
			add(*decl, true)
		}
		for _, f := range files {
			if !lang.IsFlowFile(f) || !mentions(s, f, sym.name) {
				continue
			}
			fc := s.ws.flow(f)
			if fc.prog == nil || fc.prog.Registry == nil {
				continue
			}
			b := fc.prog.Registry.Lookup(sym.name)
			if b == nil || (decl != nil && (b.Def == nil || b.Def.NameRange != *decl)) || (decl == nil && !b.Builtin()) {
				continue
			}
			for _, o := range flowOccurrences(fc.files[f]) {
				if o.kind == kindBlock && o.name == sym.name {
					add(o.rng, o.decl)
				}
			}
			s.testPlaces(f, func(flow string, o occurrence) {
				if o.kind == kindBlock && o.name == sym.name {
					add(o.rng, false)
				}
			})
		}
		sortPlaces(out)
		return out
	}
	fc := s.ws.flow(sym.flow)
	if f := fc.files[sym.flow]; f != nil {
		for _, o := range flowOccurrences(f) {
			if o.kind == sym.kind && o.name == sym.name {
				add(o.rng, o.decl)
			}
		}
	}
	s.testSymbols(sym.name, func(ts *symbol, o occurrence) {
		if *ts == *sym {
			add(o.rng, false)
		}
	})
	if sym.kind == kindInput || sym.kind == kindOutput {
		// The flows that use this one as a sub-flow: their steps' arguments
		// are its inputs, their step.S.FIELD its outputs.
		name := ""
		if fc.prog != nil && fc.prog.Flow != nil {
			name = fc.prog.Flow.Name
		}
		want := kindArg
		if sym.kind == kindOutput {
			want = kindField
		}
		for _, f := range files {
			if !lang.IsFlowFile(f) || f == sym.flow || name == "" || !mentions(s, f, "flow."+name) {
				continue
			}
			pc := s.ws.flow(f)
			if pc.prog == nil || pc.files[f] == nil {
				continue
			}
			uses := func(step string) bool {
				st := pc.prog.StepsByName[step]
				return st != nil && st.Flow != nil && absolute(st.Flow.Filename) == sym.flow
			}
			for _, o := range flowOccurrences(pc.files[f]) {
				if o.kind == want && o.name == sym.name && uses(o.owner) {
					add(o.rng, false)
				}
			}
		}
	}
	sortPlaces(out)
	return out
}

func sortPlaces(ps []place) {
	sort.Slice(ps, func(i, j int) bool {
		a, b := ps[i].rng, ps[j].rng
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	})
}

// testPlaces calls fn with each occurrence in the tests that run the
// flow at flow (the test files of its directory).
func (s *Server) testPlaces(flow string, fn func(flow string, o occurrence)) {
	for _, f := range s.ws.filesLocked() {
		if !lang.IsTestFile(f) || filepath.Dir(f) != filepath.Dir(flow) {
			continue
		}
		tc := s.ws.test(f)
		if tc.file == nil {
			continue
		}
		occ := testOccurrences(tc.file)
		for def, fc := range tc.flows {
			if fc.path != flow {
				continue
			}
			for _, o := range occ[def.Name] {
				fn(flow, o)
			}
		}
	}
}

// testSymbols calls fn with each name the test files of the workspace
// hold (those that mention name; all when it is "") and the symbol it
// resolves to in the test's flow: the steps, inputs and outputs of the
// flow, and through step paths and step.S.FIELD those of the flows it
// uses. A field of a step that uses no flow is not the step.
func (s *Server) testSymbols(name string, fn func(sym *symbol, o occurrence)) {
	for _, f := range s.ws.filesLocked() {
		if !lang.IsTestFile(f) || (name != "" && !mentions(s, f, name)) {
			continue
		}
		tc := s.ws.test(f)
		if tc.file == nil {
			continue
		}
		occ := testOccurrences(tc.file)
		for def, fc := range tc.flows {
			for _, o := range occ[def.Name] {
				if o.kind == kindBlock {
					continue
				}
				sym := s.resolve(fc.path, fc.prog, o)
				if sym == nil || (o.kind == kindField && sym.kind != kindOutput) {
					continue
				}
				fn(sym, o)
			}
		}
	}
}

// mentions reports whether a file's text holds s (a cheap test before
// compiling it).
func mentions(srv *Server, path, s string) bool {
	return bytes.Contains(srv.textFor(path).src, []byte(s))
}

func (s *Server) prepareRename(ctx context.Context, p protocol.PrepareRenameParams) (*protocol.Range, error) {
	v := s.view(p.TextDocument.URI)
	sym, o := s.symbolAt(v, v.offset(p.Position))
	if sym == nil || sym.kind == kindFlow {
		return nil, jrpc2.Errorf(errRequestFailed, "Only steps, inputs, locals, secrets, memories, outputs and blocks can be renamed.")
	}
	if sym.kind == kindBlock && s.declaration(sym, v) == nil {
		return nil, jrpc2.Errorf(errRequestFailed, "Block %q is built in and cannot be renamed.", sym.name)
	}
	r := v.text.rng(o.rng)
	return &r, nil
}

func (s *Server) rename(ctx context.Context, p protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	v := s.view(p.TextDocument.URI)
	sym, _ := s.symbolAt(v, v.offset(p.Position))
	if sym == nil || sym.kind == kindFlow {
		return nil, jrpc2.Errorf(errRequestFailed, "There is nothing to rename here: only steps, inputs, locals, secrets, memories, outputs and blocks can be renamed.")
	}
	if msg := s.renameClash(sym, v, p.NewName); msg != "" {
		return nil, jrpc2.Errorf(errRequestFailed, "%s", msg)
	}
	edit := &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{}}
	for _, pl := range s.occurrencesOf(sym, v) {
		loc := s.location(pl.rng)
		edit.Changes[loc.URI] = append(edit.Changes[loc.URI], protocol.TextEdit{Range: loc.Range, NewText: p.NewName})
	}
	return edit, nil
}

// renameClash is why a symbol cannot take a new name, "" when it can.
func (s *Server) renameClash(sym *symbol, v *view, name string) string {
	if !lang.ValidName(name) {
		return fmt.Sprintf("%q is not a valid name: names start with a lower-case letter or an underscore and hold only lower-case letters, digits and underscores.", name)
	}
	if name == sym.name {
		return ""
	}
	if sym.kind == kindBlock {
		decl := s.declaration(sym, v)
		if decl == nil {
			return fmt.Sprintf("Block %q is built in and cannot be renamed.", sym.name)
		}
		// Every flow that sees the block must not see another by the new
		// name.
		for _, f := range s.ws.filesLocked() {
			if !lang.IsFlowFile(f) || !mentions(s, f, sym.name) {
				continue
			}
			if fc := s.ws.flow(f); fc.prog != nil && fc.prog.Registry != nil {
				if b := fc.prog.Registry.Lookup(name); b != nil {
					where := "a built-in block"
					if b.Def != nil {
						where = "defined at " + lang.RangeString(b.Def.NameRange)
					}
					return fmt.Sprintf("A block named %q exists already (%s).", name, where)
				}
			}
		}
		return ""
	}
	prog := s.ws.flow(sym.flow).prog
	if prog == nil {
		return "The flow does not parse; fix its syntax first."
	}
	taken := func(r hcl.Range) string {
		return fmt.Sprintf("The flow already has %s %s named %q (%s); choose another name.", lang.Article(sym.kind), sym.kind, name, lang.RangeString(r))
	}
	switch sym.kind {
	case kindStep:
		if x := prog.StepsByName[name]; x != nil {
			return taken(x.NameRange)
		}
	case kindInput:
		if x := prog.InputsByName[name]; x != nil {
			return taken(x.NameRange)
		}
	case kindSecret:
		if x := prog.SecretsByName[name]; x != nil {
			return taken(x.NameRange)
		}
	case kindLocal:
		if x := prog.LocalsByName[name]; x != nil {
			return taken(x.NameRange)
		}
	case kindMemory:
		if x := prog.MemoriesByName[name]; x != nil {
			return taken(x.NameRange)
		}
	case kindOutput:
		if x := prog.OutputsByName[name]; x != nil {
			return taken(x.NameRange)
		}
	}
	if sym.kind == kindInput && lang.IsMetaArgument(name) {
		return fmt.Sprintf("%q is a step meta-argument, so a step that uses this flow could not set an input of that name.", name)
	}
	return ""
}
