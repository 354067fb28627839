package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/index"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/thinker"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
)

// localBlocksDir holds the block files of the current directory's
// registry, as blocks/ next to a flow file does for the flow.
const localBlocksDir = "blocks"

func newBlocksCommand(s streams) *cobra.Command {
	var a arguments.Blocks
	cmd := &cobra.Command{
		Use:   "blocks [list | search QUERY | show NAME]",
		Short: "List, search and describe the blocks steps can use",
		Long: `Blocks lists the blocks a flow in the current directory can use: the
built-ins, the blocks of ./blocks/*.block.hcl, those of every --registry
directory, and the blocks defined inline in the flow files of the current
directory (which only their own flow can use), then the tools of the
mcp_server blocks of those flow files, as mcp.SERVER.TOOL (each server is
started, or reached, to list them). Search ranks the blocks for a
query by their names, tags, descriptions and use_when texts; with
FLOWCTL_EMBEDDINGS_MODEL set it ranks by embeddings too, caching the vectors
in .flowctl. Show describes one block: its inputs and outputs with their
types and defaults, and where it is defined.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			switch a.Sub {
			case "search":
				return blocksSearch(s, a.Registries, a.Query, a.Limit, a.JSON)
			case "show":
				return blocksShow(s, a.Registries, a.Name, a.JSON)
			}
			return blocksList(s, a.Registries, a.JSON)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

// loadBlocks loads the blocks of the current directory (blocks.LoadWorkdir).
// Problems in the block and flow files are printed as validate prints
// them and end the command.
func loadBlocks(s streams, registries []string, jsonOut bool) ([]*blocks.Block, *flowLoader, error) {
	l := newFlowLoader(s, registries)
	all, diags := blocks.LoadWorkdir(l.parser, localBlocksDir, registries)
	if err := l.check(compiler.Normalize(diags)); err != nil {
		return nil, nil, err
	}
	return all, l, nil
}

func blocksList(s streams, registries []string, jsonOut bool) error {
	all, l, err := loadBlocks(s, registries, jsonOut)
	if err != nil {
		return err
	}
	return views.NewBlocks(s.out, jsonOut).List(all, listMCPTools(l))
}

// mcpListTimeout bounds how long blocks list waits for MCP servers.
const mcpListTimeout = 30 * time.Second

// listMCPTools starts or reaches the MCP servers the flow files of the
// current directory declare, and lists their tools
// (runtime.ListFlowMCPTools).
func listMCPTools(l *flowLoader) []blocks.MCPTool {
	flows, _ := filepath.Glob("*.flow.hcl")
	return runtime.ListFlowMCPTools(flows, compiler.Options{Parser: l.parser, RegistryDirs: l.registries}, mcpListTimeout)
}

func blocksSearch(s streams, registries []string, query string, limit int, jsonOut bool) error {
	all, _, err := loadBlocks(s, registries, jsonOut)
	if err != nil {
		return err
	}
	ix := index.New(all)
	ctx, stop := interruptible()
	defer stop()
	closeState := thinker.SearchEmbeddings(ctx, s.err, ix, os.LookupEnv, project.State("", "."))
	defer closeState()
	hits, err := ix.SearchContext(ctx, query, limit)
	if err != nil {
		thinker.WarnNoEmbeddings(s.err, err)
	}
	return views.NewBlocks(s.out, jsonOut).Search(query, hits)
}

// blocksShow describes the block of that name. When flows of the current
// directory define it inline each, the first is described and the others
// are named.
func blocksShow(s streams, registries []string, name string, jsonOut bool) error {
	all, l, err := loadBlocks(s, registries, jsonOut)
	if err != nil {
		return err
	}
	var found []*blocks.Block
	names := map[string]bool{}
	for _, b := range all {
		names[b.Name] = true
		if b.Name == name {
			found = append(found, b)
		}
	}
	if len(found) == 0 {
		return l.fail(hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Unknown block",
			Detail: fmt.Sprintf("There is no block named %q among the built-ins, %s/*.block.hcl, the --registry directories and the flow files of the current directory.%s",
				name, localBlocksDir, lang.SuggestAmong(name, lang.SortedKeys(names))),
		}})
	}
	return views.NewBlocks(s.out, jsonOut).Show(found[0], found[1:])
}
