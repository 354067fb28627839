package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/index"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
	"github.com/zclconf/go-cty/cty"
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
built-ins, the blocks of ./blocks/*.block.hcl, those of every --registry
directory, and the blocks defined inline in the flow files of the current
directory (which only their own flow can use). Search ranks them for a
query by their names, tags, descriptions and use_when texts; with
FLOWCTL_EMBEDDINGS_MODEL set it ranks by embeddings too, caching the vectors
in .flowctl. Show describes one block: its inputs and outputs with their
types and defaults, and where it is defined.`,
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
			case sub == "search" && strings.TrimSpace(strings.Join(args, " ")) != "":
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

// loadBlocks loads the blocks of the current directory: its registry (the
// built-ins, ./blocks and the registries), then the blocks defined inline
// in its flow files, flow by flow in the order of their names. Each flow's
// inline blocks are checked against the registry as the flow's compilation
// checks them (a name taken twice is an error). Problems in the block and
// flow files are printed as validate prints them and end the command. A
// name may appear more than once: inline in different flows.
func loadBlocks(s streams, registries []string, jsonOut bool) ([]*blocks.Block, *flowLoader, error) {
	l := newFlowLoader(s, registries)
	dirs := registries
	if dirExists(localBlocksDir) {
		dirs = append([]string{localBlocksDir}, registries...)
	}
	reg, diags := blocks.Load(blocks.LoadOptions{Parser: l.parser, RegistryDirs: dirs})
	all := reg.All()
	flows, _ := filepath.Glob("*.flow.hcl")
	for _, flow := range flows {
		inline, d := flowBlockDefs(l.parser, flow)
		diags = append(diags, d...)
		if len(inline) == 0 {
			continue
		}
		r, d := blocks.Load(blocks.LoadOptions{Parser: l.parser, FlowFile: flow, Inline: inline, RegistryDirs: registries})
		diags = append(diags, d...)
		for _, b := range r.All() {
			if inlineIn(b) == flow {
				all = append(all, b)
			}
		}
	}
	if err := l.check(compiler.Normalize(diags)); err != nil {
		return nil, nil, err
	}
	return all, l, nil
}

// inlineIn is the flow file a block is defined inline in, or "".
func inlineIn(b *blocks.Block) string {
	if b.Def == nil || !lang.IsFlowFile(b.Def.DeclRange.Filename) {
		return ""
	}
	return b.Def.DeclRange.Filename
}

// definedIn says briefly where a block is defined, for tables.
func definedIn(b *blocks.Block) string {
	switch {
	case b.Def == nil:
		return "built in"
	case inlineIn(b) != "":
		return inlineIn(b) + " (inline)"
	}
	return b.Def.DeclRange.Filename
}

type jsonBlockSummary struct {
	Name        string    `json:"name"`
	Runtime     string    `json:"runtime"`
	Description string    `json:"description"`
	UseWhen     string    `json:"use_when"`
	Tags        []string  `json:"tags"`
	DefinedAt   *jsonSpot `json:"defined_at"`
	Inline      bool      `json:"inline"` // defined in a flow file, for that flow alone
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
		out.DefinedAt = spotOf(b)
		out.Inline = inlineIn(b) != ""
	}
	return out
}

func spotOf(b *blocks.Block) *jsonSpot {
	r := b.DeclRange()
	return &jsonSpot{Filename: r.Filename, Line: r.Start.Line, Column: r.Start.Column}
}

func blocksList(s streams, registries []string, jsonOut bool) error {
	all, _, err := loadBlocks(s, registries, jsonOut)
	if err != nil {
		return err
	}
	if jsonOut {
		out := []jsonBlockSummary{}
		for _, b := range all {
			out = append(out, newJSONBlockSummary(b))
		}
		return writeJSON(s.out, out)
	}
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tRUNTIME\tDEFINED IN\tDESCRIPTION")
	for _, b := range all {
		fmt.Fprintln(tw, cells(b.Name, b.Runtime, definedIn(b), firstLine(b.Description)))
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
	all, _, err := loadBlocks(s, registries, jsonOut)
	if err != nil {
		return err
	}
	ix := index.New(all)
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
	fmt.Fprintln(tw, "SCORE\tNAME\tRUNTIME\tDEFINED IN\tDESCRIPTION")
	for _, h := range hits {
		fmt.Fprintln(tw, cells(fmt.Sprintf("%.2f", h.Score), h.Block.Name, h.Block.Runtime, definedIn(h.Block), firstLine(h.Block.Description)))
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
	// AlsoDefinedAt are the other definitions of the name: inline blocks
	// of other flows.
	AlsoDefinedAt []*jsonSpot `json:"also_defined_at,omitempty"`
}

type jsonBlockField struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Required    *bool           `json:"required,omitempty"` // inputs only
	Default     json.RawMessage `json:"default,omitempty"`
	Description string          `json:"description"`
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
				name, localBlocksDir, lang.Suggest(name, lang.SortedKeys(names))),
		}})
	}
	if jsonOut {
		out := newJSONBlock(found[0])
		for _, b := range found[1:] {
			out.AlsoDefinedAt = append(out.AlsoDefinedAt, spotOf(b))
		}
		return writeJSON(s.out, out)
	}
	writeBlock(s.out, found[0], found[1:])
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

// writeBlock describes a block for people; others are other definitions
// of its name.
func writeBlock(w io.Writer, b *blocks.Block, others []*blocks.Block) {
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
	timeout, examples := "none (the step's timeout applies)", 0
	if b.Def != nil {
		if b.Def.Timeout != nil {
			timeout = b.Def.Timeout.Duration.String()
		}
		examples = len(b.Def.Examples)
	}
	row("Timeout:", timeout)
	row("Examples:", fmt.Sprint(examples))
	switch {
	case b.Def == nil:
		row("Defined at:", "built in")
	case inlineIn(b) != "":
		r := b.DeclRange()
		row("Defined at:", fmt.Sprintf("%s:%d (inline: only that flow can use it)", r.Filename, r.Start.Line))
	default:
		r := b.DeclRange()
		row("Defined at:", fmt.Sprintf("%s:%d", r.Filename, r.Start.Line))
	}
	for _, o := range others {
		r := o.DeclRange()
		row("Also defined at:", fmt.Sprintf("%s:%d (inline)", r.Filename, r.Start.Line))
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
	b, err := jsonval.Marshal(v)
	if err != nil {
		return "(" + lang.FriendlyTypeName(v.Type()) + ")"
	}
	return string(b)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
