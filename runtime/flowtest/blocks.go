package flowtest

import (
	"fmt"
	"sort"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"
	"github.com/hashicorp/hcl/v2"
)

// LoadBlocks finds the flow and block files under the paths, as
// validate does, and returns the user blocks they define, in the blocks/
// directories next to the flows and in the registries: each once, ordered
// by file and position (what flowctl test runs the examples of). Diagnostics report definitions that do not
// decode, check or compile; a flow's steps are not compiled.
func LoadBlocks(parser *lang.Parser, paths, registries []string, goEngine string) ([]*blocks.Block, hcl.Diagnostics) {
	flows, blockFiles, diags := project.FindFlowsAndBlocks(paths, len(registries) > 0)

	found := map[string]*blocks.Block{}
	loaded := map[string]bool{}
	collect := func(r *blocks.Registry) {
		for _, f := range r.Files() {
			loaded[lang.AbsPath(f)] = true
		}
		for _, b := range r.All() {
			if b.Def == nil {
				continue
			}
			key := fmt.Sprintf("%s:%d", lang.AbsPath(b.Def.DeclRange.Filename), b.Def.DeclRange.Start.Byte)
			if _, ok := found[key]; !ok {
				found[key] = b
			}
		}
	}
	for _, flow := range flows {
		inline, d := lang.DecodeFlowBlockDefs(parser, flow)
		diags = append(diags, d...)
		if d.HasErrors() && inline == nil {
			continue
		}
		r, d := blocks.Load(blocks.LoadOptions{Parser: parser, FlowFile: flow, Inline: inline, RegistryDirs: registries})
		diags = append(diags, d...)
		collect(r)
	}
	if len(flows) == 0 {
		r := blocks.NewRegistry()
		for _, dir := range registries {
			diags = append(diags, r.LoadDir(parser, dir, true)...)
		}
		collect(r)
	}
	for _, bf := range blockFiles {
		if loaded[lang.AbsPath(bf)] {
			continue
		}
		defs, d := blocks.ParseBlockFile(parser, bf)
		diags = append(diags, d...)
		r := blocks.NewRegistry()
		diags = append(diags, r.AddDefs(defs)...)
		collect(r)
	}

	out := make([]*blocks.Block, 0, len(found))
	for _, b := range found {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Def.DeclRange, out[j].Def.DeclRange
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	})
	defs := make([]*lang.BlockDef, len(out))
	for i, b := range out {
		defs[i] = b.Def
	}
	diags = append(diags, compiler.CheckCode(defs, goEngine)...)
	return out, diags
}
