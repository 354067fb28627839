package cli

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/mcp"
	"github.com/flowctl/flowctl/project"
	"github.com/spf13/cobra"
)

// Formats of flowctl tools.
const (
	toolsOpenAI     = arguments.ToolsOpenAI
	toolsMCP        = arguments.ToolsMCP
	toolsJSONSchema = arguments.ToolsJSONSchema
)

func newToolsCommand(s streams) *cobra.Command {
	var a arguments.Tools
	cmd := &cobra.Command{
		Use:   "tools [DIR]",
		Short: "Print the flows under a directory as tool definitions",
		Long: `Tools prints the flows under DIR (default .) as the definitions of tools
that a model or an agent framework can call (through flowctl serve's API, or
flowctl mcp): the name and description of each flow, the JSON Schema of its
inputs (types, descriptions, defaults; those without a default required;
sensitive inputs left out, as a client may not give them) and of its
outputs. --format openai prints an OpenAI "tools" array, mcp an MCP tool
list, json-schema the plain schemas. A flow with expose = false is left
out; --only NAMES selects flows.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			progs, err := toolFlows(s, a.Dir, a.Registries, a.Only)
			if err != nil {
				return err
			}
			var out any
			switch a.Format {
			case toolsOpenAI:
				list := []any{}
				for _, p := range progs {
					list = append(list, map[string]any{"type": "function", "function": map[string]any{
						"name": p.Flow.Name, "description": p.Flow.Description, "parameters": p.InputSchema(),
					}})
				}
				out = list
			case toolsMCP:
				list := []any{}
				for _, p := range progs {
					list = append(list, map[string]any{"name": p.Flow.Name, "description": p.Flow.Description,
						"inputSchema": p.InputSchema(), "outputSchema": p.OutputSchema()})
				}
				out = map[string]any{"tools": list}
			case toolsJSONSchema:
				list := []any{}
				for _, p := range progs {
					list = append(list, map[string]any{"name": p.Flow.Name, "description": p.Flow.Description,
						"input_schema": p.InputSchema(), "output_schema": p.OutputSchema()})
				}
				out = list
			}
			enc := json.NewEncoder(s.out)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

// toolFlows compiles the flows under dir that are offered as tools: not
// expose = false, and among only when it is set. A flow that does not
// compile ends the command with its diagnostics.
func toolFlows(s streams, dir string, registries, only []string) ([]*compiler.Program, error) {
	files, diags := project.Find([]string{dir}, lang.IsFlowFile)
	l := newFlowLoader(s, registries)
	if err := l.check(diags); err != nil {
		return nil, err
	}
	var progs []*compiler.Program
	var names []string
	for _, f := range files {
		prog, err := l.compile(f)
		if err != nil {
			return nil, err
		}
		names = append(names, prog.Flow.Name)
		if !mcp.Offered(prog, only) {
			continue
		}
		progs = append(progs, prog)
	}
	for _, n := range only {
		if !slices.Contains(names, n) {
			return nil, failf("Unknown flow", "--only names %q, which is not a flow under %s (%s).%s", n, dir, strings.Join(names, ", "), lang.Suggest(n, names))
		}
	}
	return progs, nil
}
