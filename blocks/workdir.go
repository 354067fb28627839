package blocks

import (
	"os"
	"path/filepath"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// LoadWorkdir loads the blocks of the current directory: its registry (the
// built-ins, the local directory of blocks, local, when there is one, and
// the registries), then the blocks defined inline in its flow files, flow
// by flow in the order of their names. Each flow's inline blocks are
// checked against the registry as the flow's compilation checks them (a
// name taken twice is an error). A name may appear more than once: inline
// in different flows. flowctl blocks lists, searches and shows them.
func LoadWorkdir(parser *lang.Parser, local string, registries []string) ([]*Block, hcl.Diagnostics) {
	dirs := registries
	if info, err := os.Stat(local); err == nil && info.IsDir() {
		dirs = append([]string{local}, registries...)
	}
	reg, diags := Load(LoadOptions{Parser: parser, RegistryDirs: dirs})
	all := reg.All()
	flows, _ := filepath.Glob("*.flow.hcl")
	for _, flow := range flows {
		inline, d := lang.DecodeFlowBlockDefs(parser, flow)
		diags = append(diags, d...)
		if len(inline) == 0 {
			continue
		}
		r, d := Load(LoadOptions{Parser: parser, FlowFile: flow, Inline: inline, RegistryDirs: registries})
		diags = append(diags, d...)
		for _, b := range r.All() {
			if b.InlineIn() == flow {
				all = append(all, b)
			}
		}
	}
	return all, diags
}

// InlineIn is the flow file the block is defined inline in, or "".
func (b *Block) InlineIn() string {
	if b.Def == nil || !lang.IsFlowFile(b.Def.DeclRange.Filename) {
		return ""
	}
	return b.Def.DeclRange.Filename
}
