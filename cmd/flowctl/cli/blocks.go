package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/index"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// localBlocksDir holds the block files of the current directory's
// registry, as blocks/ next to a flow file does for the flow.
const localBlocksDir = "blocks"

// blocksStateDir is where search caches embedding vectors: the state of
// the current directory.
const blocksStateDir = ".flowctl"

func newBlocksCommand(s streams) *cobra.Command {
	var registries []string
	var jsonOut bool
	var limit int
	cmd := &cobra.Command{
		Use:   "blocks [list | search QUERY | show NAME]",
		Short: "List, search and describe the blocks steps can use",
		Long: `Blocks lists the blocks a flow in the current directory can use: the
built-ins, the blocks of ./blocks/*.block.hcl and those of every --registry
directory. Search ranks them for a query by their names, tags, descriptions
and use_when texts; with FLOWCTL_EMBEDDINGS_MODEL set it ranks by embeddings
too, caching the vectors in .flowctl. Show describes one block: its inputs
and outputs with their types and defaults, and where it is defined.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sub := "list"
			if len(args) > 0 {
				sub, args = args[0], args[1:]
			}
			switch {
			case sub == "list" && len(args) == 0:
				return blocksList(s, registries, jsonOut)
			case sub == "list":
				return usagef("blocks list takes no arguments")
			case sub == "search" && len(args) > 0:
				if limit < 1 {
					return usagef("--limit must be at least 1")
				}
				return blocksSearch(s, registries, strings.Join(args, " "), limit, jsonOut)
			case sub == "search":
				return usagef("blocks search needs a query, such as: flowctl blocks search \"fetch a web page\"")
			case sub == "show" && len(args) == 1:
				return blocksShow(s, registries, args[0], jsonOut)
			case sub == "show":
				return usagef("blocks show needs one block name")
			}
			return usagef("unknown blocks subcommand %q: use list, search QUERY or show NAME", sub)
		},
	}
	cmd.Flags().StringArrayVar(&registries, "registry", nil, "a directory of *.block.hcl files to add to the registry (repeatable)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	cmd.Flags().IntVar(&limit, "limit", 10, "search: show at most this many blocks")
	return cmd
}

// loadBlocks loads the registry of the current directory. Problems in the
// block files are printed as validate prints them and end the command.
func loadBlocks(s streams, registries []string, jsonOut bool) (*blocks.Registry, *flowLoader, error) {
	l := newFlowLoader(s, jsonOut, registries)
	dirs := registries
	if dirExists(localBlocksDir) {
		dirs = append([]string{localBlocksDir}, registries...)
	}
	reg, diags := blocks.Load(blocks.LoadOptions{Parser: l.parser, RegistryDirs: dirs})
	if err := l.check(diags); err != nil {
		return nil, nil, err
	}
	return reg, l, nil
}

type jsonBlockSummary struct {
	Name        string    `json:"name"`
	Runtime     string    `json:"runtime"`
	Description string    `json:"description"`
	UseWhen     string    `json:"use_when"`
	Tags        []string  `json:"tags"`
	DefinedAt   *jsonSpot `json:"defined_at"`
}

// jsonSpot is where a block is defined.
type jsonSpot struct {
	Filename string `json:"filename"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
}

func newJSONBlockSummary(b *blocks.Block) jsonBlockSummary {
	out := jsonBlockSummary{Name: b.Name, Runtime: b.Runtime, Description: b.Description, UseWhen: b.UseWhen, Tags: b.Tags}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	if !b.Builtin() {
		r := b.DeclRange()
		out.DefinedAt = &jsonSpot{Filename: r.Filename, Line: r.Start.Line, Column: r.Start.Column}
	}
	return out
}

func blocksList(s streams, registries []string, jsonOut bool) error {
	reg, _, err := loadBlocks(s, registries, jsonOut)
	if err != nil {
		return err
	}
	if jsonOut {
		out := []jsonBlockSummary{}
		for _, b := range reg.All() {
			out = append(out, newJSONBlockSummary(b))
		}
		return writeJSON(s.out, out)
	}
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tRUNTIME\tDESCRIPTION")
	for _, b := range reg.All() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", b.Name, b.Runtime, firstLine(b.Description))
	}
	return tw.Flush()
}

type jsonHit struct {
	jsonBlockSummary
	Score  float64 `json:"score"`
	Text   float64 `json:"text_score"`
	Vector float64 `json:"vector_score"`
}

func blocksSearch(s streams, registries []string, query string, limit int, jsonOut bool) error {
	reg, _, err := loadBlocks(s, registries, jsonOut)
	if err != nil {
		return err
	}
	ix := index.New(reg.All())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	closeState := useEmbeddings(ctx, s.err, ix)
	defer closeState()
	hits, err := ix.SearchContext(ctx, query, limit)
	if err != nil {
		warnNoEmbeddings(s.err, err)
	}
	if jsonOut {
		out := []jsonHit{}
		for _, h := range hits {
			out = append(out, jsonHit{jsonBlockSummary: newJSONBlockSummary(h.Block), Score: h.Score, Text: h.Text, Vector: h.Vector})
		}
		return writeJSON(s.out, out)
	}
	if len(hits) == 0 {
		fmt.Fprintf(s.out, "No block matches %q.\n", query)
		return nil
	}
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCORE\tNAME\tRUNTIME\tDESCRIPTION")
	for _, h := range hits {
		fmt.Fprintf(tw, "%.2f\t%s\t%s\t%s\n", h.Score, h.Block.Name, h.Block.Runtime, firstLine(h.Block.Description))
	}
	return tw.Flush()
}

// useEmbeddings switches ix to embeddings when FLOWCTL_EMBEDDINGS_MODEL is
// set, with the vectors cached in the state of the current directory.
// When that fails it says so and leaves ix with text ranking. The returned
// function closes the state.
func useEmbeddings(ctx context.Context, stderr io.Writer, ix *index.Index) func() {
	model := strings.TrimSpace(os.Getenv(llm.EnvEmbeddingsModel))
	if model == "" {
		return func() {}
	}
	cfg, err := llm.ConfigFromEnv(os.LookupEnv)
	if err != nil {
		warnNoEmbeddings(stderr, err)
		return func() {}
	}
	if cfg.APIKey == "" && cfg.BaseURL == "" {
		warnNoEmbeddings(stderr, fmt.Errorf("%s is set, but no model server is configured: set %s, or %s for a local OpenAI-compatible server",
			llm.EnvEmbeddingsModel, llm.EnvAPIKey, llm.EnvBaseURL))
		return func() {}
	}
	var cache index.VectorCache
	st, err := state.Open(blocksStateDir)
	if err != nil {
		fmt.Fprintf(stderr, "Warning: embedding vectors are not cached: opening the state in %s: %s\n", blocksStateDir, err)
	} else {
		cache = st.Vectors(model)
	}
	if err := ix.UseEmbeddings(ctx, llm.NewEmbedder(cfg, model), cache, model); err != nil {
		warnNoEmbeddings(stderr, err)
	}
	if st == nil {
		return func() {}
	}
	return func() { st.Close() }
}

func warnNoEmbeddings(w io.Writer, err error) {
	fmt.Fprintf(w, "Warning: searching by text alone; embeddings are not available: %s\n", err)
}

type jsonBlock struct {
	jsonBlockSummary
	Timeout     *string          `json:"timeout"`
	Inputs      []jsonBlockField `json:"inputs"`
	Outputs     []jsonBlockField `json:"outputs"`
	OpenOutputs bool             `json:"open_outputs"`
	Examples    int              `json:"examples"`
}

type jsonBlockField struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Required    *bool           `json:"required,omitempty"` // inputs only
	Default     json.RawMessage `json:"default,omitempty"`
	Description string          `json:"description"`
}

func blocksShow(s streams, registries []string, name string, jsonOut bool) error {
	reg, l, err := loadBlocks(s, registries, jsonOut)
	if err != nil {
		return err
	}
	b := reg.Lookup(name)
	if b == nil {
		return l.fail(hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Unknown block",
			Detail: fmt.Sprintf("There is no block named %q among the built-ins, %s/*.block.hcl and the --registry directories.%s",
				name, localBlocksDir, lang.Suggest(name, reg.Names())),
		}})
	}
	if jsonOut {
		return writeJSON(s.out, newJSONBlock(b))
	}
	writeBlock(s.out, b)
	return nil
}

func newJSONBlock(b *blocks.Block) jsonBlock {
	out := jsonBlock{jsonBlockSummary: newJSONBlockSummary(b), Inputs: []jsonBlockField{}, Outputs: []jsonBlockField{}, OpenOutputs: b.OpenOutputs}
	if b.Def != nil {
		if b.Def.Timeout != nil {
			t := b.Def.Timeout.Duration.String()
			out.Timeout = &t
		}
		out.Examples = len(b.Def.Examples)
	}
	for _, f := range b.Inputs {
		required := f.Required()
		jf := jsonBlockField{Name: f.Name, Type: lang.TypeString(f.Type.Type), Required: &required, Description: f.Description}
		if !required {
			jf.Default = json.RawMessage(defaultText(f.Default))
		}
		out.Inputs = append(out.Inputs, jf)
	}
	for _, f := range b.Outputs {
		out.Outputs = append(out.Outputs, jsonBlockField{Name: f.Name, Type: lang.TypeString(f.Type.Type), Description: f.Description})
	}
	return out
}

// writeBlock describes a block for people.
func writeBlock(w io.Writer, b *blocks.Block) {
	fmt.Fprintf(w, "%s\n", b.Name)
	if b.Description != "" {
		fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(strings.TrimSpace(b.Description), "\n", "\n  "))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	row("Runtime:", b.Runtime)
	if b.UseWhen != "" {
		row("Use when:", b.UseWhen)
	}
	if len(b.Tags) > 0 {
		row("Tags:", strings.Join(b.Tags, ", "))
	}
	if b.Def != nil {
		timeout := "none (the step's timeout applies)"
		if b.Def.Timeout != nil {
			timeout = b.Def.Timeout.Duration.String()
		}
		row("Timeout:", timeout)
		row("Examples:", fmt.Sprint(len(b.Def.Examples)))
		r := b.DeclRange()
		row("Defined at:", fmt.Sprintf("%s:%d", r.Filename, r.Start.Line))
	} else {
		row("Defined at:", "built in")
	}
	tw.Flush()

	fmt.Fprintln(w, "\nInputs:")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range b.Inputs {
		def := "required"
		if !f.Required() {
			def = "default " + defaultText(f.Default)
		}
		fmt.Fprintln(tw, cells("  "+f.Name, lang.TypeString(f.Type.Type), def, f.Description))
	}
	if len(b.Inputs) == 0 {
		fmt.Fprintln(tw, "  (none)")
	}
	tw.Flush()

	fmt.Fprintln(w, "\nOutputs:")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range b.Outputs {
		fmt.Fprintln(tw, cells("  "+f.Name, lang.TypeString(f.Type.Type), f.Description))
	}
	if len(b.Outputs) == 0 {
		fmt.Fprintln(tw, "  (none)")
	}
	tw.Flush()
	if b.OpenOutputs {
		fmt.Fprintln(w, "  A step may declare more outputs with typed output blocks.")
	}
}

// cells joins the cells of a table row with tabs, leaving out empty cells
// at the end so that the row has no trailing blanks.
func cells(cs ...string) string {
	for len(cs) > 1 && cs[len(cs)-1] == "" {
		cs = cs[:len(cs)-1]
	}
	return strings.Join(cs, "\t")
}

// defaultText renders a default value as JSON, which HCL reads too.
func defaultText(v cty.Value) string {
	if v.IsNull() {
		return "null"
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return "(" + lang.FriendlyTypeName(v.Type()) + ")"
	}
	return string(b)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
