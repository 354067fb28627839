package views

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/index"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
)

// Blocks renders what flowctl blocks finds: the blocks, a search's
// ranked hits, or one block.
type Blocks interface {
	List(all []*blocks.Block, tools []blocks.MCPTool) error
	Search(query string, hits []index.Hit) error
	Show(b *blocks.Block, others []*blocks.Block) error
}

var (
	_ Blocks = blocksHuman{}
	_ Blocks = blocksJSON{}
)

// NewBlocks returns the view of flowctl blocks: tables, or JSON.
func NewBlocks(w io.Writer, jsonOut bool) Blocks {
	if jsonOut {
		return blocksJSON{w}
	}
	return blocksHuman{w}
}

// blocksHuman prints tables and a block's description.
type blocksHuman struct{ w io.Writer }

func (v blocksHuman) List(all []*blocks.Block, tools []blocks.MCPTool) error {
	tw := tabwriter.NewWriter(v.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tRUNTIME\tDEFINED IN\tDESCRIPTION")
	for _, b := range all {
		fmt.Fprintln(tw, cells(b.Name, b.Runtime, definedIn(b), FirstLine(b.Description)))
	}
	for _, t := range tools {
		desc := FirstLine(t.Description)
		if t.Err != nil {
			desc = "cannot list its tools: " + Cut(FirstLine(t.Err.Error()), 160)
		}
		fmt.Fprintln(tw, cells(t.Name(), lang.ToolMCP, fmt.Sprintf("%s (mcp_server %s)", t.Flow, t.Server.Name), desc))
	}
	return tw.Flush()
}

func (v blocksHuman) Search(query string, hits []index.Hit) error {
	if len(hits) == 0 {
		fmt.Fprintf(v.w, "No block matches %q.\n", query)
		return nil
	}
	tw := tabwriter.NewWriter(v.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCORE\tNAME\tRUNTIME\tDEFINED IN\tDESCRIPTION")
	for _, h := range hits {
		fmt.Fprintln(tw, cells(fmt.Sprintf("%.2f", h.Score), h.Block.Name, h.Block.Runtime, definedIn(h.Block), FirstLine(h.Block.Description)))
	}
	return tw.Flush()
}

func (v blocksHuman) Show(b *blocks.Block, others []*blocks.Block) error {
	writeBlock(v.w, b, others)
	return nil
}

// blocksJSON prints JSON.
type blocksJSON struct{ w io.Writer }

func (v blocksJSON) List(all []*blocks.Block, tools []blocks.MCPTool) error {
	out := []jsonBlockSummary{}
	for _, b := range all {
		out = append(out, newJSONBlockSummary(b))
	}
	for _, t := range tools {
		r := t.Server.DeclRange
		js := jsonBlockSummary{Name: t.Name(), Runtime: lang.ToolMCP, Description: t.Description, Tags: []string{},
			DefinedAt: &jsonSpot{Filename: r.Filename, Line: r.Start.Line, Column: r.Start.Column}, Inline: true,
			MCPServer: t.Server.Name, InputSchema: t.InputSchema}
		if t.Err != nil {
			js.Error = t.Err.Error()
		}
		out = append(out, js)
	}
	return WriteJSON(v.w, out)
}

func (v blocksJSON) Search(_ string, hits []index.Hit) error {
	out := []jsonHit{}
	for _, h := range hits {
		out = append(out, jsonHit{jsonBlockSummary: newJSONBlockSummary(h.Block), Score: h.Score, Text: h.Text, Vector: h.Vector})
	}
	return WriteJSON(v.w, out)
}

func (v blocksJSON) Show(b *blocks.Block, others []*blocks.Block) error {
	out := newJSONBlock(b)
	for _, o := range others {
		out.AlsoDefinedAt = append(out.AlsoDefinedAt, spotOf(o))
	}
	return WriteJSON(v.w, out)
}

type jsonBlockSummary struct {
	Name        string    `json:"name"`
	Runtime     string    `json:"runtime"`
	Description string    `json:"description"`
	UseWhen     string    `json:"use_when"`
	Tags        []string  `json:"tags"`
	DefinedAt   *jsonSpot `json:"defined_at"`
	Inline      bool      `json:"inline"` // defined in a flow file, for that flow alone
	// MCPServer, for a tool of an MCP server (runtime "mcp", named
	// mcp.SERVER.TOOL), is the server; InputSchema its arguments' JSON
	// Schema; Error why the server's tools could not be listed.
	MCPServer   string          `json:"mcp_server,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	Error       string          `json:"error,omitempty"`
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
		out.Inline = inline(b)
	}
	return out
}

func spotOf(b *blocks.Block) *jsonSpot {
	r := b.DeclRange()
	return &jsonSpot{Filename: r.Filename, Line: r.Start.Line, Column: r.Start.Column}
}

type jsonHit struct {
	jsonBlockSummary
	Score  float64 `json:"score"`
	Text   float64 `json:"text_score"`
	Vector float64 `json:"vector_score"`
}

type jsonBlock struct {
	jsonBlockSummary
	Timeout     *string          `json:"timeout"`
	Inputs      []jsonBlockField `json:"inputs"`
	Outputs     []jsonBlockField `json:"outputs"`
	OpenOutputs bool             `json:"open_outputs"`
	Examples    int              `json:"examples"`
	// Dependencies are its requirements, packages or require, pinned by
	// flowctl lock (lang.BlockDef.Dependencies).
	Dependencies []string `json:"dependencies,omitempty"`
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

func newJSONBlock(b *blocks.Block) jsonBlock {
	out := jsonBlock{jsonBlockSummary: newJSONBlockSummary(b), Inputs: []jsonBlockField{}, Outputs: []jsonBlockField{}, OpenOutputs: b.OpenOutputs,
		Dependencies: b.Def.Dependencies()}
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
	if deps := b.Def.Dependencies(); len(deps) > 0 {
		row("Dependencies:", strings.Join(deps, ", ")+" (pinned by flowctl lock)")
	}
	switch {
	case b.Def == nil:
		row("Defined at:", "built in")
	case inline(b):
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

// FirstLine is the first line of s.
func FirstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// inline reports whether a block is defined inline in a flow file.
func inline(b *blocks.Block) bool { return b.InlineIn() != "" }

// definedIn says briefly where a block is defined, for tables.
func definedIn(b *blocks.Block) string {
	switch {
	case b.Def == nil:
		return "built in"
	case inline(b):
		return b.Def.DeclRange.Filename + " (inline)"
	}
	return b.Def.DeclRange.Filename
}
