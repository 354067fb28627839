package importer

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// decl is a top-level block of a generated file and the comment lines
// above it.
type Decl struct {
	Comment []string
	Block   *hclwrite.Block
}

// local is one attribute of the flow's locals block.
type Local struct {
	Comment string
	Name    string
	Value   Expr
}

// blockFile is a generated blocks/NAME.block.hcl.
type BlockFile struct {
	Name   string
	Header []string
	Blocks []Decl
	// fixed, when set, is the file's formatted text, the same for every
	// import (the n8n_code block's).
	Fixed func() []byte
}

// flowFile is a flow being generated: its parts in the order the file
// lists them.
type flowFile struct {
	Name        string
	Header      []string // comment lines above the flow block
	Description string
	Expose      *bool
	Inputs      []Decl
	secrets     []*secretDecl
	Memories    []Decl
	Schedules   []Decl
	Triggers    []Decl // webhook triggers
	Locals      []Local
	Providers   []Decl // model servers
	Collections []Decl // vector collections
	Blocks      []Decl // inline block definitions
	Steps       []Decl
	Outputs     []Decl
	BlockFiles  []*BlockFile
	Next        []string // what the user must do, besides secrets
	// Flows are the flows written beside this one, each a file of its
	// own: the tools its llm steps call as flow.NAME.
	Flows  []*flowFile
	parent *flowFile // the flow a flow of Flows is written beside
	// Beside are files written as they are beside the flow: the flows of
	// a registry (importer/n8n/apps) its steps use as flow.NAME, the same
	// bytes for every import.
	Beside []File
}

// secretDecl is a secret of the flow, and what its value is for the user.
type secretDecl struct {
	name, env, description, forWhat string
	value                           string // the source's literal value, never written; for deduplication
}

func (f *flowFile) flowBytes() []byte {
	file := hclwrite.NewEmptyFile()
	body := file.Body()
	comment(body, f.Header...)
	fb := hclwrite.NewBlock("flow", []string{f.Name})
	if f.Description != "" {
		fb.Body().SetAttributeRaw("description", Clone(Str(f.Description)))
	}
	if f.Expose != nil {
		fb.Body().SetAttributeValue("expose", cty.BoolVal(*f.Expose))
	}
	body.AppendBlock(fb)
	appendDecls := func(ds []Decl) {
		for _, d := range ds {
			body.AppendNewline()
			comment(body, d.Comment...)
			body.AppendBlock(d.Block)
		}
	}
	appendDecls(f.Inputs)
	for _, s := range f.secrets {
		b := hclwrite.NewBlock("secret", []string{s.name})
		if s.env != "" {
			b.Body().SetAttributeValue("env", cty.StringVal(s.env))
		}
		if s.description != "" {
			b.Body().SetAttributeValue("description", cty.StringVal(s.description))
		}
		body.AppendNewline()
		body.AppendBlock(b)
	}
	appendDecls(f.Providers)
	appendDecls(f.Collections)
	appendDecls(f.Memories)
	appendDecls(f.Schedules)
	appendDecls(f.Triggers)
	if len(f.Locals) > 0 {
		body.AppendNewline()
		b := hclwrite.NewBlock("locals", nil)
		for i, l := range f.Locals {
			if i > 0 && l.Comment != "" {
				b.Body().AppendNewline()
			}
			if l.Comment != "" {
				comment(b.Body(), l.Comment)
			}
			b.Body().SetAttributeRaw(l.Name, Clone(l.Value))
		}
		body.AppendBlock(b)
	}
	appendDecls(f.Blocks)
	appendDecls(f.Steps)
	appendDecls(f.Outputs)
	return file.Bytes()
}

func (b *BlockFile) Bytes() []byte {
	file := hclwrite.NewEmptyFile()
	body := file.Body()
	comment(body, b.Header...)
	for i, d := range b.Blocks {
		if i > 0 || len(b.Header) > 0 {
			body.AppendNewline()
		}
		comment(body, d.Comment...)
		body.AppendBlock(d.Block)
	}
	return file.Bytes()
}

// redact replaces every credential the source held, wherever it would
// be written (a comment naming a URL, a description), by the name of
// its secret: no file holds a credential.
func (f *flowFile) redact(src []byte) []byte {
	for _, s := range f.secrets {
		if s.value == "" {
			continue
		}
		mark := []byte("(secret." + s.name + ")")
		_, token := SplitScheme(s.value)
		for _, v := range []string{s.value, token} {
			if len(v) >= 4 {
				src = bytes.ReplaceAll(src, []byte(v), mark)
			}
		}
	}
	return src
}

func (f *flowFile) secretList() []Secret {
	var out []Secret
	for _, s := range f.secrets {
		env := s.env
		if env == "" {
			env = "FLOWCTL_SECRET_" + strings.ToUpper(s.name)
		}
		out = append(out, Secret{Flow: f.Name, Name: s.name, Env: env, For: s.forWhat})
	}
	for _, sub := range f.Flows {
		out = append(out, sub.secretList()...)
	}
	return out
}

// conv is the state of one file's conversion.
type Conv struct {
	Src    *Source
	format Format
	File   *flowFile
	Diags  hcl.Diagnostics
	Fatal  bool // the file cannot be converted at all, not even in part
	names  map[string]map[string]bool
	// Batch are the workflows of the files imported together, by their
	// ids: those a workflow may run.
	Batch map[string]*Called
}

func newConv(src *Source, format Format) *Conv {
	return &Conv{Src: src, format: format, File: &flowFile{}, names: map[string]map[string]bool{}}
}

// where describes a node or step for messages: `n8n node "Fetch"
// (n8n-nodes-base.httpRequest) at /nodes/3 of wf.json`.
type Where struct {
	At   *JV
	What string // "node", "step", "block"
	Name string
	Typ  string
}

func (w Where) String() string {
	var b strings.Builder
	b.WriteString(w.What)
	if w.Name != "" {
		fmt.Fprintf(&b, " %q", w.Name)
	}
	if w.Typ != "" {
		fmt.Fprintf(&b, " (%s)", w.Typ)
	}
	return b.String()
}

func (c *Conv) diag(sev hcl.DiagnosticSeverity, w Where, at *JV, summary, detail string) *hcl.Diagnostic {
	if at == nil {
		at = w.At
	}
	if at == nil {
		at = c.Src.Root
	}
	rng := at.Rng
	ptr := at.Ptr
	if ptr == "" {
		ptr = "/"
	}
	d := &hcl.Diagnostic{
		Severity: sev,
		Summary:  summary,
		Detail:   fmt.Sprintf("%s, at %s in %s: %s", capitalize(w.String()), ptr, c.Src.Name, detail),
		Subject:  &rng,
		Extra:    Origin{File: c.Src.Name, Path: ptr, Node: w.Name, Type: w.Typ},
	}
	c.Diags = append(c.Diags, d)
	return d
}

// problem reports what cannot be converted and returns the message the
// step standing for it fails with (--partial).
func (c *Conv) Problem(w Where, at *JV, summary, detail string) string {
	d := c.diag(hcl.DiagError, w, at, summary, detail)
	return d.Summary + ": " + d.Detail
}

// warn reports what is converted with a difference the user should know.
func (c *Conv) Warn(w Where, at *JV, summary, detail string) {
	c.diag(hcl.DiagWarning, w, at, summary, detail)
}

// stop reports what makes the whole file impossible to convert.
func (c *Conv) Stop(w Where, at *JV, summary, detail string) {
	c.diag(hcl.DiagError, w, at, summary, detail)
	c.Fatal = true
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// name returns a unique name of a kind (step, input, output, …) made from
// text in snake_case.
func (c *Conv) Name(kind, text, fallback string) string {
	used := c.names[kind]
	if used == nil {
		used = map[string]bool{}
		c.names[kind] = used
	}
	base := Snake(text)
	if base == "" {
		base = fallback
	}
	n := base
	for i := 2; used[n]; i++ {
		n = fmt.Sprintf("%s_%d", base, i)
	}
	used[n] = true
	return n
}

// Reserve marks names of a kind as used, so that Name gives none of them
// (the built-in blocks, for the names of inline blocks).
func (c *Conv) Reserve(kind string, names ...string) {
	if c.names[kind] == nil {
		c.names[kind] = map[string]bool{}
	}
	for _, n := range names {
		c.names[kind][n] = true
	}
}

// FlowName names the flow after text, or when text gives no name, after
// the source file (its name without the extension, so that two files of
// a batch without names get two flows), then fallback.
func (c *Conv) FlowName(text, fallback string) string {
	if Snake(text) == "" {
		base := filepath.Base(c.Src.Name)
		text = strings.TrimSuffix(base, filepath.Ext(base))
	}
	return c.Name("flow", text, fallback)
}

// gapStep declares a step that fails with message: what --partial writes
// for a part that could not be converted.
// inputs, when not nil, is what the part took (an n8n node's input
// items): the step keeps it, so that replacing the step is the only edit
// needed.
func (c *Conv) GapStep(name, commentLine, message string, inputs Expr) {
	declared := false
	for _, d := range c.File.Blocks {
		// Looked for, not remembered: a rolled-back conversion may have
		// dropped the declaration.
		declared = declared || slices.Equal(d.Block.Labels(), []string{"not_converted"})
	}
	if !declared {
		b := hclwrite.NewBlock("block", []string{"not_converted"})
		body := b.Body()
		body.SetAttributeValue("runtime", cty.StringVal("js"))
		body.SetAttributeValue("description", cty.StringVal("Fails with the message of what flowctl import could not convert"))
		in := body.AppendNewBlock("input", []string{"message"})
		in.Body().SetAttributeRaw("type", Clone(Code("string")))
		in = body.AppendNewBlock("input", []string{"inputs"})
		in.Body().SetAttributeRaw("type", Clone(Code("any")))
		in.Body().SetAttributeRaw("default", Clone(Code("null")))
		in.Body().SetAttributeValue("description", cty.StringVal("what the part took, for the step that replaces this one"))
		out := body.AppendNewBlock("output", []string{"value"})
		out.Body().SetAttributeRaw("type", Clone(Code("any")))
		body.SetAttributeValue("source", cty.StringVal("function execute(input) { throw new Error(input.message) }"))
		c.File.Blocks = append(c.File.Blocks, Decl{
			Comment: []string{"The steps that use this block stand for what flowctl import could not convert (--partial)."},
			Block:   b,
		})
	}
	b := hclwrite.NewBlock("step", []string{name})
	b.Body().SetAttributeValue("use", cty.StringVal("not_converted"))
	b.Body().SetAttributeRaw("message", Clone(Text(message)))
	if inputs != nil {
		b.Body().SetAttributeRaw("inputs", Clone(inputs))
	}
	c.File.Steps = append(c.File.Steps, Decl{Comment: []string{commentLine + " — not converted"}, Block: b})
}

// addSecret declares a secret for a credential found in the source (value
// is its literal value, or "" when the source only names it) and returns
// its name. The same literal value gives the same secret.
func (c *Conv) AddSecret(nameText, forWhat, value string) string {
	for _, s := range c.File.secrets {
		if value != "" && s.value == value || c.File.parent != nil && value == "" && s.value == "" && s.forWhat == forWhat {
			return s.name
		}
	}
	// A flow written beside another declares the other's secret for the
	// same credential under its name: one credential, one secret.
	if p := c.File.parent; p != nil {
		for _, s := range p.secrets {
			if value != "" && s.value == value || value == "" && s.value == "" && s.forWhat == forWhat {
				c.File.secrets = append(c.File.secrets, s)
				return s.name
			}
		}
		// And another flow beside it (two tools of one app): its secret.
		for _, f := range p.Flows {
			for _, s := range f.secrets {
				if value == "" && s.value == "" && s.forWhat == forWhat {
					c.File.secrets = append(c.File.secrets, s)
					return s.name
				}
			}
		}
	}
	name := c.Name("secret", nameText, "credential")
	c.File.secrets = append(c.File.secrets, &secretDecl{
		name: name, description: forWhat, forWhat: forWhat, value: value,
	})
	return name
}

// EnvSecret declares a secret read from the environment variable env (one
// secret for each variable) and returns its name.
func (c *Conv) EnvSecret(env, forWhat string) string {
	for _, s := range c.File.secrets {
		if s.env == env {
			return s.name
		}
	}
	name := c.Name("secret", env, "env")
	c.File.secrets = append(c.File.secrets, &secretDecl{name: name, env: env, description: forWhat, forWhat: forWhat})
	return name
}

// SubFlow starts a flow written beside the one being converted, in a file
// of its own (a tool an llm step calls as flow.NAME, named from text):
// until end is called, c.File is the new flow. end(false) drops it (it
// could not be converted); end(true) keeps it and returns its name.
func (c *Conv) SubFlow(text string) (name string, end func(keep bool)) {
	main := c.File
	name = c.Name("flow", main.Name+"_"+Snake(text), "tool")
	sub := &flowFile{Name: name, parent: main}
	c.File = sub
	return name, func(keep bool) {
		c.File = main
		if keep {
			main.Flows = append(main.Flows, sub)
		}
	}
}

// Beside writes a file as it is beside the flow (NAME.flow.hcl of a
// registry, which a step uses as flow.NAME): once, however many steps use
// it; a flow written beside another writes it beside the other, in the
// same directory.
func (c *Conv) Beside(name string, b []byte) {
	f := c.File
	for f.parent != nil {
		f = f.parent
	}
	if findFile(f.Beside, name) == nil {
		f.Beside = append(f.Beside, File{Name: name, Bytes: b})
	}
}

// step appends a step block with its comment.
func (c *Conv) Step(commentLine string, b *hclwrite.Block) {
	c.File.Steps = append(c.File.Steps, Decl{Comment: []string{commentLine}, Block: b})
}

// newStep starts a step block using the block use.
func NewStep(name, use string) (*hclwrite.Block, *hclwrite.Body) {
	b := hclwrite.NewBlock("step", []string{name})
	b.Body().SetAttributeValue("use", cty.StringVal(use))
	return b, b.Body()
}

// credentialParam is a URL query parameter, its name and its value.
var credentialParam = regexp.MustCompile(`([?&])([A-Za-z0-9_.\-]+)=([^&#\s]+)`)

// hideCredentials replaces the credentials in the literal parts of a text
// by secrets: a part that is a token as a whole (sk-…, "Bearer …", whose
// scheme stays), and the value of a URL query parameter named like a
// credential (api_key=…, token=…). where says where the text is, for the
// secret's description.
func (c *Conv) HideCredentials(parts []TPart, where string) []TPart {
	var out []TPart
	for i, p := range parts {
		if p.Expr != nil || p.Lit == "" {
			out = append(out, p)
			continue
		}
		if LooksLikeCredential(p.Lit) && strings.TrimSpace(p.Lit) == p.Lit {
			scheme, _ := SplitScheme(p.Lit)
			sec := c.AddSecret("token", "the token in "+where, p.Lit)
			out = append(out, TPart{Lit: scheme}, TPart{Expr: Ref("secret", sec)})
			continue
		}
		lit := p.Lit
		last := 0
		for _, m := range credentialParam.FindAllStringSubmatchIndex(lit, -1) {
			name := lit[m[4]:m[5]]
			atEnd := m[1] == len(lit) && i+1 < len(parts) // the value may go on in the next part
			if !CredentialName.MatchString(name) || atEnd {
				continue
			}
			sec := c.AddSecret(name, fmt.Sprintf("query parameter %s in %s", name, where), lit[m[6]:m[7]])
			out = append(out, TPart{Lit: lit[last:m[6]]}, TPart{Expr: Ref("secret", sec)})
			last = m[7]
		}
		out = append(out, TPart{Lit: lit[last:]})
	}
	return out
}

// secretValue is the value of a name/value pair (a query parameter, a
// form or body field) whose name says it is a credential: a secret, when
// the value is written in the source; nil otherwise.
func (c *Conv) SecretValue(name string, v *JV, where string) Expr {
	if v == nil || v.Kind != 's' || strings.HasPrefix(v.Str, "=") || strings.Contains(v.Str, "${") || v.Str == "" {
		return nil
	}
	if !CredentialName.MatchString(name) && !LooksLikeCredential(v.Str) {
		return nil
	}
	scheme, token := SplitScheme(v.Str)
	sec := c.AddSecret(name, fmt.Sprintf("%s %s", where, name), v.Str)
	if token != v.Str {
		return Template([]TPart{{Lit: scheme}, {Expr: Ref("secret", sec)}}, false)
	}
	return Ref("secret", sec)
}
