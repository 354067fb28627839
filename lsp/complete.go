package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"go.lsp.dev/protocol"
)

var (
	useRE       = regexp.MustCompile(`\buse\s*=\s*"([^"]*)$`)
	enumRE      = regexp.MustCompile(`\b([a-z_]+)\s*=\s*"([^"]*)$`)
	stepFieldRE = regexp.MustCompile(`\bstep\.([a-z_][a-z0-9_]*)(\[[^\]]*\])?\.([a-z0-9_]*)$`)
	rootRE      = regexp.MustCompile(`(^|[^a-zA-Z0-9_.])([a-z_]+)\.([a-z0-9_]*)$`)
	wordRE      = regexp.MustCompile(`[a-zA-Z_][a-zA-Z0-9_]*$`)
	lineStartRE = regexp.MustCompile(`^\s*([a-z_][a-z0-9_]*)?$`)
	testFlowRE  = regexp.MustCompile(`\bflow\s*=\s*"([^"]+)"`)
)

// maxDocumented is how many steps a flow has at most for completions of
// step. to carry each step's documentation.
const maxDocumented = 200

// enums are the values of the arguments that take one of a few strings.
var enums = map[string][]string{
	"runtime":   lang.Runtimes,
	"engine":    lang.Engines,
	"on_error":  {lang.OnErrorFail, lang.OnErrorContinue},
	"sandbox":   {lang.SandboxIsolated, lang.SandboxInProcess},
	"body_type": {"json", "form", "text", "base64", "multipart"},
	"response":  {"auto", "base64"},
	"method":    {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"},
	"verify":    lang.Verifications,
	"respond":   {lang.RespondAccepted, lang.RespondOutputs},
}

// attributes are the arguments and nested blocks of each kind of block,
// by the path of block types ("test/mock").
var attributes = map[string][]string{
	"":                lang.TopLevelBlocks(),
	"flow":            lang.FlowArguments(),
	"input":           {"type", "default", "description", "sensitive"},
	"secret":          {"env", "description"},
	"memory":          {"type", "default", "value", "description"},
	"output":          {"value", "description", "sensitive"},
	"schedule":        {"cron", "timezone", "inputs", "catch_up"},
	"trigger":         triggerArgs,
	"trigger/webhook": webhookArgs,
	"trigger/on_run":  onRunArgs,
	"mcp_server":      {"command", "url", "env", "headers"},
	"provider":        lang.ProviderArguments(),
	"collection":      lang.CollectionArguments(),
	"concurrency":     {"key", "limit"},
	"rate_limit":      {"key", "limit", "period"},
	"debounce":        {"key", "period"},
	"block":           {"description", "use_when", "tags", "runtime", "timeout", "source", "source_file", "sandbox", "engine", "requirements", "packages", "require", "prompt", "system", "model", "temperature", "max_tokens", "top_p", "seed", "stop", "tools", "max_tool_calls", "input", "output", "example"},
	"block/input":     {"type", "default", "description"},
	"block/output":    {"type", "description", "optional"},
	"block/example":   {"input", "output"},
	"step/retry":      {"attempts", "backoff", "max_backoff"},
	"step/output":     {"type", "description", "optional"},
	"test":            {"flow", "inputs", "secrets", "expect_failures", "mock", "override", "assert"},
	"test/mock":       {"outputs", "error", "step"},
	"test/override":   {"outputs", "error"},
	"test/assert":     {"condition", "error_message"},
}

var triggerArgs, webhookArgs, onRunArgs = lang.TriggerAttributes()

// nestedBlocks are the names above that open a block rather than take a
// value.
var nestedBlocks = map[string]string{
	"flow": "flow \"${1:name}\" {\n\tdescription = \"$2\"\n}", "input": "input \"${1:name}\" {\n\ttype = ${2:string}\n}",
	"secret": "secret \"${1:name}\" {}", "locals": "locals {\n\t$1\n}", "memory": "memory \"${1:name}\" {\n\ttype = ${2:string}\n}",
	"block": "block \"${1:name}\" {\n\truntime = \"${2:go}\"\n}", "step": "step \"${1:name}\" {\n\tuse = \"$2\"\n}",
	"output": "output \"${1:name}\" {\n\tvalue = $2\n}", "schedule": "schedule \"${1:name}\" {\n\tcron = \"$2\"\n}",
	"mcp_server": "mcp_server \"${1:name}\" {\n\tcommand = [$2]\n}", "provider": "provider \"${1:name}\" {\n\tbase_url = \"$2\"\n}", "collection": "collection \"${1:name}\" {\n\tdimensions = ${2:768}\n}", "retry": "retry {\n\tattempts = ${1:3}\n}",
	"example": "example {\n\tinput  = {$1}\n\toutput = {$2}\n}", "mock": "mock \"${1:block}\" {\n\toutputs = {$2}\n}",
	"override": "override \"step.${1:name}\" {\n\toutputs = {$2}\n}", "assert": "assert {\n\tcondition     = $1\n\terror_message = \"$2\"\n}",
	"test":    "test \"${1:name}\" {\n\t$1\n}",
	"trigger": "trigger \"${1:name}\" {\n\twebhook {\n\t\tpath   = \"$2\"\n\t\tverify = \"${3:github}\"\n\t}\n}",
	"webhook": "webhook {\n\tpath   = \"$1\"\n\tverify = \"${2:github}\"\n}", "on_run": "on_run {\n\tflow = \"$1\"\n}",
	"concurrency": "concurrency {\n\tkey   = input.${1:name}\n\tlimit = ${2:1}\n}",
	"rate_limit":  "rate_limit {\n\tkey    = input.${1:name}\n\tlimit  = ${2:10}\n\tperiod = \"${3:1m}\"\n}",
	"debounce":    "debounce {\n\tkey    = input.${1:name}\n\tperiod = \"${2:30s}\"\n}",
}

// valueSnippets are the snippets of attributes whose value has a shape
// worth typing for the user: a code block's dependencies.
var valueSnippets = map[string]string{
	"requirements": "requirements = [\"${1:package>=1.0}\"]",
	"packages":     "packages = { \"${1:name}\" = \"${2:^1.0.0}\" }",
	"require":      "require = { \"${1:module/path}\" = \"${2:v1.0.0}\" }",
}

func (s *Server) completion(ctx context.Context, p protocol.CompletionParams) (*protocol.CompletionList, error) {
	path := pathOf(p.TextDocument.URI)
	doc := s.overlay()[path]
	if doc == nil {
		return &protocol.CompletionList{}, nil
	}
	off := doc.text.offset(p.Position)
	src := doc.text.src
	lineStart := off
	for lineStart > 0 && src[lineStart-1] != '\n' {
		lineStart--
	}
	prefix := string(src[lineStart:off])
	word := wordRE.FindString(prefix)
	replace := doc.text.span(off-len(word), off)
	stack := openBlocks(src, off)

	prog := s.completionProgram(path, stack)
	cl := &completer{prog: prog, src: src, replace: replace, stack: stack, path: path, list: &protocol.CompletionList{Items: []protocol.CompletionItem{}}}
	switch {
	case inStep(stack) && useRE.MatchString(prefix):
		partial := useRE.FindStringSubmatch(prefix)[1]
		cl.replace = doc.text.span(off-len(partial), off)
		cl.blockNames(s)
	case enumRE.MatchString(prefix):
		m := enumRE.FindStringSubmatch(prefix)
		cl.replace = doc.text.span(off-len(m[2]), off)
		cl.enum(m[1])
	case stepFieldRE.MatchString(prefix):
		m := stepFieldRE.FindStringSubmatch(prefix)
		cl.stepFields(m[1])
	case rootRE.MatchString(prefix):
		m := rootRE.FindStringSubmatch(prefix)
		cl.rootNames(s, m[2], prefix)
	case lineStartRE.MatchString(prefix) && (len(stack) == 0 || stack[len(stack)-1].typ != ""):
		cl.attributes()
	default:
		cl.expression()
	}
	s.mu.Lock()
	snippets := s.snippets
	s.mu.Unlock()
	if !snippets {
		for i := range cl.list.Items {
			it := &cl.list.Items[i]
			if it.InsertTextFormat == protocol.InsertTextFormatSnippet {
				it.InsertTextFormat = protocol.InsertTextFormatPlainText
				it.TextEdit.NewText = plainSnippet(it.TextEdit.NewText)
			}
		}
	}
	return cl.list, nil
}

var snippetRE = regexp.MustCompile(`\$\{\d+:([^}]*)\}|\$\{\d+\}|\$\d+`)

// plainSnippet is a snippet's text without its tab stops, for a client
// that takes no snippets: ${1:name} is name, $1 and ${1} nothing.
func plainSnippet(s string) string {
	return snippetRE.ReplaceAllString(s, "$1")
}

func inStep(stack []frame) bool { return len(stack) == 1 && stack[0].typ == kindStep }

// completionProgram is the program completion answers from: the flow's
// (for a test file, its flow's), or while the file does not parse the
// last one that did.
func (s *Server) completionProgram(path string, stack []frame) *compiler.Program {
	switch {
	case lang.IsFlowFile(path):
		return s.ws.parsedFlow(path)
	case lang.IsTestFile(path):
		t := s.ws.test(path)
		for def, fc := range t.flows {
			if len(stack) > 0 && len(stack[0].labels) > 0 && stack[0].labels[0] == def.Name {
				return s.ws.parsedFlow(fc.path)
			}
		}
		for _, fc := range t.flows {
			return s.ws.parsedFlow(fc.path)
		}
		// The test file does not parse: the flow its flow argument names,
		// else the one flow of its directory.
		if m := testFlowRE.FindSubmatch(s.textFor(path).src); m != nil {
			if p, err := lang.ResolveLocalPath(filepath.Dir(path), string(m[1])); err == nil {
				return s.ws.parsedFlow(absolute(p))
			}
		}
		flows, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.flow.hcl"))
		if len(flows) == 1 {
			return s.ws.parsedFlow(absolute(flows[0]))
		}
	}
	return nil
}

type completer struct {
	prog    *compiler.Program
	src     []byte // the file's text, which need not parse
	replace protocol.Range
	stack   []frame
	path    string
	list    *protocol.CompletionList
}

func (c *completer) add(label string, kind protocol.CompletionItemKind, detail, doc string) *protocol.CompletionItem {
	item := protocol.CompletionItem{
		Label: label, Kind: kind, Detail: detail,
		TextEdit: &protocol.TextEdit{Range: c.replace, NewText: label},
	}
	if doc != "" {
		item.Documentation = protocol.MarkupContent{Kind: protocol.Markdown, Value: doc}
	}
	c.list.Items = append(c.list.Items, item)
	return &c.list.Items[len(c.list.Items)-1]
}

// blockNames completes use = "…": the registry's blocks and the flows a
// step may use.
func (c *completer) blockNames(s *Server) {
	var all []*blocks.Block
	if c.prog != nil && c.prog.Registry != nil {
		all = c.prog.Registry.All()
	} else {
		all = blocks.Builtins()
	}
	for _, b := range all {
		c.add(b.Name, protocol.CompletionItemKindClass, b.Runtime, blockDoc(b))
	}
	for _, name := range flowNames(s, c.path) {
		c.add("flow."+name, protocol.CompletionItemKindModule, "flow", "Run flow `"+name+"` as this step's block.")
	}
}

// flowNames are the names of the flows in a flow's directory and the
// registries, but its own.
func flowNames(s *Server, path string) []string {
	_, registries := s.config()
	var names []string
	for _, dir := range append([]string{filepath.Dir(path)}, registries...) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.flow.hcl"))
		for _, f := range files {
			abs, _ := filepath.Abs(f)
			if abs == path {
				continue
			}
			if n := declaredFlowName(s, abs); n != "" {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return names
}

// declaredFlowName reads the name of the flow a file declares.
func declaredFlowName(s *Server, path string) string {
	var src []byte
	if d := s.overlay()[path]; d != nil {
		src = d.text.src
	} else {
		src, _ = os.ReadFile(path)
	}
	toks, _ := hclsyntax.LexConfig(src, path, hcl.InitialPos)
	for i := 0; i+2 < len(toks); i++ {
		if toks[i].Type == hclsyntax.TokenIdent && string(toks[i].Bytes) == "flow" && toks[i+1].Type == hclsyntax.TokenOQuote && toks[i+2].Type == hclsyntax.TokenQuotedLit {
			return string(toks[i+2].Bytes)
		}
	}
	return ""
}

func (c *completer) enum(attr string) {
	if attr == "server" && c.prog != nil {
		for _, srv := range c.prog.MCPServers {
			c.add(srv.Name, protocol.CompletionItemKindEnumMember, "mcp_server", "")
		}
		return
	}
	for _, v := range enums[attr] {
		c.add(v, protocol.CompletionItemKindEnumMember, attr, "")
	}
}

// stepFields completes step.NAME.: the step's outputs.
func (c *completer) stepFields(step string) {
	if c.prog == nil {
		return
	}
	st := c.prog.StepsByName[step]
	if st == nil {
		return
	}
	for _, f := range st.Outputs {
		c.add(f.Name, protocol.CompletionItemKindField, typeName(outputType(st, f)), f.Description)
	}
}

// rootNames completes ROOT.: the names a reference root has.
func (c *completer) rootNames(s *Server, root, prefix string) {
	p := c.prog
	if p == nil {
		return
	}
	tools := strings.Contains(prefix, "tools")
	switch root {
	case lang.RootStep:
		self := ""
		if len(c.stack) > 0 && c.stack[0].typ == kindStep && len(c.stack[0].labels) > 0 {
			self = c.stack[0].labels[0]
		}
		for _, st := range p.Steps {
			if st.Name == self {
				continue
			}
			doc := ""
			if len(p.Steps) <= maxDocumented {
				doc = stepDoc(st) // of every step of a large flow, too much to send
			}
			c.add(st.Name, protocol.CompletionItemKindFunction, blockName(st), doc)
		}
	case lang.RootInput:
		for _, in := range p.Inputs {
			c.add(in.Name, protocol.CompletionItemKindVariable, typeName(in.Type.Type), in.Description)
		}
	case lang.RootLocal:
		for _, l := range p.Locals {
			c.add(l.Name, protocol.CompletionItemKindConstant, typeName(localType(p, l)), "")
		}
	case lang.RootSecret:
		for _, sec := range p.Secrets {
			c.add(sec.Name, protocol.CompletionItemKindVariable, "string (sensitive)", sec.Description)
		}
	case lang.RootMemory:
		for _, m := range p.Memories {
			c.add(m.Name, protocol.CompletionItemKindVariable, typeName(m.Type.Type), m.Description)
		}
	case lang.RootEach:
		c.add("key", protocol.CompletionItemKindProperty, "the instance's key", "")
		c.add("value", protocol.CompletionItemKindProperty, "the instance's element", "")
	case lang.RootRun:
		c.add("id", protocol.CompletionItemKindProperty, "string", "The run's ID.")
		if lang.IsTestFile(c.path) {
			c.add("status", protocol.CompletionItemKindProperty, "string", "The test run's status.")
			c.add("failed_steps", protocol.CompletionItemKindProperty, "list(string)", "The steps that failed.")
		}
	case kindOutput:
		for _, o := range p.Outputs {
			c.add(o.Name, protocol.CompletionItemKindProperty, typeName(p.OutputTypes[o.Name]), o.Description)
		}
	case lang.RootFlow:
		if tools {
			for _, name := range flowNames(s, c.path) {
				c.add(name, protocol.CompletionItemKindModule, "flow", "")
			}
			return
		}
		c.add("name", protocol.CompletionItemKindProperty, "string", "The flow's name.")
	case lang.ToolBlock:
		if p.Registry != nil {
			for _, b := range p.Registry.All() {
				c.add(b.Name, protocol.CompletionItemKindClass, b.Runtime, blockDoc(b))
			}
		}
	case lang.RootProvider:
		for _, pr := range p.Providers {
			c.add(pr.Name, protocol.CompletionItemKindModule, "provider", pr.BaseURL)
		}
	case lang.RootCollection:
		for _, col := range p.Collections {
			c.add(col.Name, protocol.CompletionItemKindModule, "collection", fmt.Sprintf("%d dimensions, %s distance", col.Dimensions, col.Distance))
		}
	case lang.ToolMCP:
		for _, srv := range p.MCPServers {
			c.add(srv.Name, protocol.CompletionItemKindModule, "mcp_server", "Its tools are known when the server runs: write mcp."+srv.Name+".TOOL.")
		}
	}
}

// attributes completes a name at the start of a line: a step's
// arguments (the block's inputs not yet set, required first, as
// snippets, then the meta-arguments) or a block's attributes.
func (c *completer) attributes() {
	var path []string
	for _, f := range c.stack {
		path = append(path, f.typ)
	}
	key := strings.Join(path, "/")
	if key == kindStep {
		c.stepArguments()
		return
	}
	for i, name := range attributes[key] {
		item := c.add(name, protocol.CompletionItemKindProperty, "", "")
		item.SortText = fmt.Sprintf("%03d", i)
		if snip, ok := nestedBlocks[name]; ok && key != "block/example" {
			item.Kind = protocol.CompletionItemKindStruct
			item.InsertTextFormat = protocol.InsertTextFormatSnippet
			item.TextEdit.NewText = snip
		} else if snip, ok := valueSnippets[name]; ok && key == "block" {
			item.InsertTextFormat = protocol.InsertTextFormatSnippet
			item.TextEdit.NewText = snip
		} else {
			item.InsertTextFormat = protocol.InsertTextFormatSnippet
			item.TextEdit.NewText = name + " = $0"
		}
	}
}

// stepArguments completes a step's arguments from what its block takes:
// the block's inputs and the meta-arguments that apply to it. The step
// is read from its text, which need not parse; its block is the
// compiled step's when the program has it, else the one its use names.
func (c *completer) stepArguments() {
	text := readStep(c.src, c.stack[0])
	b := c.stepBlock(text.use)
	if b != nil {
		inputs := append([]*lang.Field(nil), b.Inputs...)
		sort.SliceStable(inputs, func(i, j int) bool { return inputs[i].Required() && !inputs[j].Required() })
		for i, in := range inputs {
			if text.set[in.Name] {
				continue
			}
			detail := typeName(in.Type.Type)
			if in.Required() {
				detail += ", required"
			}
			item := c.add(in.Name, protocol.CompletionItemKindField, detail, in.Description)
			item.SortText = fmt.Sprintf("0%03d", i)
			item.InsertTextFormat = protocol.InsertTextFormatSnippet
			item.TextEdit.NewText = in.Name + " = " + placeholder(in.Type.Type, true)
		}
	}
	for i, m := range lang.MetaArguments {
		if (text.set[m] && m != "output") || !metaApplies(m, b, text) {
			continue
		}
		item := c.add(m, protocol.CompletionItemKindKeyword, "meta-argument", metaDocs[m])
		item.SortText = fmt.Sprintf("1%03d", i)
		item.InsertTextFormat = protocol.InsertTextFormatSnippet
		if m == "output" {
			item.TextEdit.NewText = "output \"${1:name}\" {\n\ttype = ${2:string}\n}"
		} else if snip, ok := nestedBlocks[m]; ok {
			item.TextEdit.NewText = snip
		} else {
			item.TextEdit.NewText = m + " = $0"
		}
	}
	if compiler.IsApproval(b) {
		// The fields the person deciding fills in (lang/approval.go).
		item := c.add("input", protocol.CompletionItemKindKeyword, "approval input field", "A typed field the person deciding fills in; it becomes an output of the step.")
		item.SortText = fmt.Sprintf("1%03d", len(lang.MetaArguments))
		item.InsertTextFormat = protocol.InsertTextFormatSnippet
		item.TextEdit.NewText = "input \"${1:name}\" {\n\ttype        = ${2:string}\n\tdescription = \"$3\"\n}"
	}
}

// stepBlock is the block of the step open at the cursor, which uses
// use: the compiled step's (a flow.NAME step's block is made from the
// flow), else the registry's block of that name; nil when unknown.
func (c *completer) stepBlock(use string) *blocks.Block {
	if use == "" {
		return nil
	}
	if c.prog != nil && len(c.stack[0].labels) > 0 {
		if st := c.prog.StepsByName[c.stack[0].labels[0]]; st != nil && st.Use == use && st.Block != nil {
			return st.Block
		}
	}
	if c.prog != nil && c.prog.Registry != nil {
		return c.prog.Registry.Lookup(use)
	}
	for _, b := range blocks.Builtins() {
		if b.Name == use {
			return b
		}
	}
	return nil
}

// metaApplies reports whether a step of block b (nil: not known yet)
// takes meta-argument m, as validate checks it: tools only on llm
// steps, max_tool_calls only beside tools, parallelism only beside
// for_each, output blocks only where the block's outputs are open or
// typed by the step.
func metaApplies(m string, b *blocks.Block, text stepText) bool {
	switch m {
	case "tools":
		return b == nil || b.IsLLM()
	case "max_tool_calls":
		return text.set["tools"] && (b == nil || b.IsLLM())
	case "parallelism":
		return text.set["for_each"]
	case "output":
		return b == nil || b.OpenOutputs || len(b.TypedOutputs) > 0
	case "on_timeout":
		return b == nil || compiler.IsApproval(b)
	}
	return true
}

// placeholder is a value of a type to start from: a snippet with a tab
// stop when snippet is set.
func placeholder(ty cty.Type, snippet bool) string {
	v := "null"
	switch {
	case ty == cty.String:
		v = `"${1}"`
		if !snippet {
			v = `""`
		}
	case ty == cty.Number:
		v = "0"
	case ty == cty.Bool:
		v = "false"
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		v = "[]"
	case ty.IsMapType() || ty.IsObjectType():
		v = "{}"
	}
	if snippet && v != `"${1}"` {
		return "${1:" + v + "}"
	}
	return v
}

// expression completes inside an expression: the functions and the
// reference roots.
func (c *completer) expression() {
	funcs := lang.Functions(".")
	if c.prog != nil && c.prog.Functions != nil {
		funcs = c.prog.Functions
	}
	for _, name := range lang.SortedKeys(funcs) {
		f := funcs[name]
		item := c.add(name, protocol.CompletionItemKindFunction, signature(name, f), f.Description())
		item.InsertTextFormat = protocol.InsertTextFormatSnippet
		item.TextEdit.NewText = name + "($1)"
	}
	roots := lang.Roots
	if lang.IsTestFile(c.path) {
		roots = []string{lang.RootInput, lang.RootStep, kindOutput, lang.RootRun}
	}
	for _, r := range roots {
		c.add(r, protocol.CompletionItemKindModule, "reference", "")
	}
}
