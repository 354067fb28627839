package importer

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// decl is a top-level block of a generated file and the comment lines
// above it.
type decl struct {
	comment []string
	block   *hclwrite.Block
}

// local is one attribute of the flow's locals block.
type local struct {
	comment string
	name    string
	value   expr
}

// blockFile is a generated blocks/NAME.block.hcl.
type blockFile struct {
	name   string
	header []string
	blocks []decl
	// fixed, when set, is the file's formatted text, the same for every
	// import (the n8n_code block's).
	fixed func() []byte
}

// flowFile is a flow being generated: its parts in the order the file
// lists them.
type flowFile struct {
	name        string
	header      []string // comment lines above the flow block
	description string
	expose      *bool
	inputs      []decl
	secrets     []*secretDecl
	memories    []decl
	schedules   []decl
	locals      []local
	blocks      []decl // inline block definitions
	steps       []decl
	outputs     []decl
	blockFiles  []*blockFile
	next        []string // what the user must do, besides secrets
}

// secretDecl is a secret of the flow, and what its value is for the user.
type secretDecl struct {
	name, env, description, forWhat string
	value                           string // the source's literal value, never written; for deduplication
}

func (f *flowFile) flowBytes() []byte {
	file := hclwrite.NewEmptyFile()
	body := file.Body()
	comment(body, f.header...)
	fb := hclwrite.NewBlock("flow", []string{f.name})
	if f.description != "" {
		fb.Body().SetAttributeRaw("description", clone(str(f.description)))
	}
	if f.expose != nil {
		fb.Body().SetAttributeValue("expose", cty.BoolVal(*f.expose))
	}
	body.AppendBlock(fb)
	appendDecls := func(ds []decl) {
		for _, d := range ds {
			body.AppendNewline()
			comment(body, d.comment...)
			body.AppendBlock(d.block)
		}
	}
	appendDecls(f.inputs)
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
	appendDecls(f.memories)
	appendDecls(f.schedules)
	if len(f.locals) > 0 {
		body.AppendNewline()
		b := hclwrite.NewBlock("locals", nil)
		for i, l := range f.locals {
			if i > 0 && l.comment != "" {
				b.Body().AppendNewline()
			}
			if l.comment != "" {
				comment(b.Body(), l.comment)
			}
			b.Body().SetAttributeRaw(l.name, clone(l.value))
		}
		body.AppendBlock(b)
	}
	appendDecls(f.blocks)
	appendDecls(f.steps)
	appendDecls(f.outputs)
	return file.Bytes()
}

func (b *blockFile) bytes() []byte {
	file := hclwrite.NewEmptyFile()
	body := file.Body()
	comment(body, b.header...)
	for i, d := range b.blocks {
		if i > 0 || len(b.header) > 0 {
			body.AppendNewline()
		}
		comment(body, d.comment...)
		body.AppendBlock(d.block)
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
		_, token := splitScheme(s.value)
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
		out = append(out, Secret{Flow: f.name, Name: s.name, Env: env, For: s.forWhat})
	}
	return out
}

// conv is the state of one file's conversion.
type conv struct {
	src    *source
	format Format
	file   *flowFile
	diags  hcl.Diagnostics
	fatal  bool // the file cannot be converted at all, not even in part
	names  map[string]map[string]bool
	gaps   bool // a not_converted block is declared
}

func newConv(src *source, format Format) *conv {
	return &conv{src: src, format: format, file: &flowFile{}, names: map[string]map[string]bool{}}
}

// where describes a node or step for messages: `n8n node "Fetch"
// (n8n-nodes-base.httpRequest) at /nodes/3 of wf.json`.
type where struct {
	at   *jv
	what string // "node", "step", "block"
	name string
	typ  string
}

func (w where) String() string {
	var b strings.Builder
	b.WriteString(w.what)
	if w.name != "" {
		fmt.Fprintf(&b, " %q", w.name)
	}
	if w.typ != "" {
		fmt.Fprintf(&b, " (%s)", w.typ)
	}
	return b.String()
}

func (c *conv) diag(sev hcl.DiagnosticSeverity, w where, at *jv, summary, detail string) *hcl.Diagnostic {
	if at == nil {
		at = w.at
	}
	if at == nil {
		at = c.src.Root
	}
	rng := at.Rng
	ptr := at.Ptr
	if ptr == "" {
		ptr = "/"
	}
	d := &hcl.Diagnostic{
		Severity: sev,
		Summary:  summary,
		Detail:   fmt.Sprintf("%s, at %s in %s: %s", capitalize(w.String()), ptr, c.src.Name, detail),
		Subject:  &rng,
		Extra:    Origin{File: c.src.Name, Path: ptr, Node: w.name, Type: w.typ},
	}
	c.diags = append(c.diags, d)
	return d
}

// problem reports what cannot be converted and returns the message the
// step standing for it fails with (--partial).
func (c *conv) problem(w where, at *jv, summary, detail string) string {
	d := c.diag(hcl.DiagError, w, at, summary, detail)
	return d.Summary + ": " + d.Detail
}

// warn reports what is converted with a difference the user should know.
func (c *conv) warn(w where, at *jv, summary, detail string) {
	c.diag(hcl.DiagWarning, w, at, summary, detail)
}

// stop reports what makes the whole file impossible to convert.
func (c *conv) stop(w where, at *jv, summary, detail string) {
	c.diag(hcl.DiagError, w, at, summary, detail)
	c.fatal = true
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// name returns a unique name of a kind (step, input, output, …) made from
// text in snake_case.
func (c *conv) name(kind, text, fallback string) string {
	used := c.names[kind]
	if used == nil {
		used = map[string]bool{}
		c.names[kind] = used
	}
	base := snake(text)
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

// gapStep declares a step that fails with message: what --partial writes
// for a part that could not be converted.
func (c *conv) gapStep(name, commentLine, message string) {
	if !c.gaps {
		c.gaps = true
		b := hclwrite.NewBlock("block", []string{"not_converted"})
		body := b.Body()
		body.SetAttributeValue("runtime", cty.StringVal("js"))
		body.SetAttributeValue("description", cty.StringVal("Fails with the message of what flowctl import could not convert"))
		in := body.AppendNewBlock("input", []string{"message"})
		in.Body().SetAttributeRaw("type", clone(code("string")))
		out := body.AppendNewBlock("output", []string{"value"})
		out.Body().SetAttributeRaw("type", clone(code("any")))
		body.SetAttributeValue("source", cty.StringVal("function execute(input) { throw new Error(input.message) }"))
		c.file.blocks = append(c.file.blocks, decl{
			comment: []string{"The steps that use this block stand for what flowctl import could not convert (--partial)."},
			block:   b,
		})
	}
	b := hclwrite.NewBlock("step", []string{name})
	b.Body().SetAttributeValue("use", cty.StringVal("not_converted"))
	b.Body().SetAttributeRaw("message", clone(text(message)))
	c.file.steps = append(c.file.steps, decl{comment: []string{commentLine + " — not converted"}, block: b})
}

// addSecret declares a secret for a credential found in the source (value
// is its literal value, or "" when the source only names it) and returns
// its name. The same literal value gives the same secret.
func (c *conv) addSecret(nameText, forWhat, value string) string {
	for _, s := range c.file.secrets {
		if value != "" && s.value == value {
			return s.name
		}
	}
	name := c.name("secret", nameText, "credential")
	c.file.secrets = append(c.file.secrets, &secretDecl{
		name: name, description: forWhat, forWhat: forWhat, value: value,
	})
	return name
}

// step appends a step block with its comment.
func (c *conv) step(commentLine string, b *hclwrite.Block) {
	c.file.steps = append(c.file.steps, decl{comment: []string{commentLine}, block: b})
}

// newStep starts a step block using the block use.
func newStep(name, use string) (*hclwrite.Block, *hclwrite.Body) {
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
func (c *conv) hideCredentials(parts []tpart, where string) []tpart {
	var out []tpart
	for i, p := range parts {
		if p.Expr != nil || p.Lit == "" {
			out = append(out, p)
			continue
		}
		if looksLikeCredential(p.Lit) && strings.TrimSpace(p.Lit) == p.Lit {
			scheme, _ := splitScheme(p.Lit)
			sec := c.addSecret("token", "the token in "+where, p.Lit)
			out = append(out, tpart{Lit: scheme}, tpart{Expr: ref("secret", sec)})
			continue
		}
		lit := p.Lit
		last := 0
		for _, m := range credentialParam.FindAllStringSubmatchIndex(lit, -1) {
			name := lit[m[4]:m[5]]
			atEnd := m[1] == len(lit) && i+1 < len(parts) // the value may go on in the next part
			if !credentialName.MatchString(name) || atEnd {
				continue
			}
			sec := c.addSecret(name, fmt.Sprintf("query parameter %s in %s", name, where), lit[m[6]:m[7]])
			out = append(out, tpart{Lit: lit[last:m[6]]}, tpart{Expr: ref("secret", sec)})
			last = m[7]
		}
		out = append(out, tpart{Lit: lit[last:]})
	}
	return out
}

// secretValue is the value of a name/value pair (a query parameter, a
// form or body field) whose name says it is a credential: a secret, when
// the value is written in the source; nil otherwise.
func (c *conv) secretValue(name string, v *jv, where string) expr {
	if v == nil || v.Kind != 's' || strings.HasPrefix(v.Str, "=") || strings.Contains(v.Str, "${") || v.Str == "" {
		return nil
	}
	if !credentialName.MatchString(name) && !looksLikeCredential(v.Str) {
		return nil
	}
	scheme, token := splitScheme(v.Str)
	sec := c.addSecret(name, fmt.Sprintf("%s %s", where, name), v.Str)
	if token != v.Str {
		return template([]tpart{{Lit: scheme}, {Expr: ref("secret", sec)}}, false)
	}
	return ref("secret", sec)
}
