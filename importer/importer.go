package importer

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Format is a source format.
type Format string

// The formats import reads.
const (
	AnythingLLM Format = "anythingllm"
	AgentFlow   Format = "agentflow"
	N8N         Format = "n8n"
)

// Formats are the formats, in the order --from lists them.
var Formats = []Format{AnythingLLM, AgentFlow, N8N}

// File is a file given to import, or written by it.
type File struct {
	Name  string // a path; for written files, relative to the output directory
	Bytes []byte
}

// Options configure an import.
type Options struct {
	// From forces the format; empty detects it from each file's shape.
	From Format
	// Blocks are the AgentFlow registry's block definitions: JSON files
	// holding one definition or a list of them.
	Blocks []File
	// Partial writes a flow even when parts of it cannot be converted:
	// each such part becomes a step that fails with the diagnostic's
	// message, and the diagnostics are warnings.
	Partial bool
}

// Result is what an import writes and what the user must do next.
type Result struct {
	Files   []File   // flows and block files, in the order written
	Secrets []Secret // the secrets the flows read
	Next    []string // other things to do, one sentence each
}

// Secret is a secret a generated flow declares: its value is not in any
// written file and must be set before a run.
type Secret struct {
	Flow string // the flow's name
	Name string
	Env  string // the environment variable it is read from
	For  string // what it is, for the user
}

// Origin says where in a source file a diagnostic comes from; it is the
// Extra of every diagnostic Import returns that has a place.
type Origin struct {
	File string `json:"file"`
	Path string `json:"path"` // a JSON Pointer
	Node string `json:"node,omitempty"`
	Type string `json:"type,omitempty"`
}

// A Converter converts a source file of its format into c's flow;
// registry holds the sources of the AgentFlow registry's blocks (only
// AgentFlow reads them).
type Converter func(c *Conv, registry []*Source)

// converters are the formats' converters, each registered by its package.
var converters = map[Format]Converter{}

// Register makes convert the converter of format f. Each format's package
// (importer/n8n, importer/anythingllm, importer/agentflow) registers its
// own when it is imported.
func Register(f Format, convert Converter) { converters[f] = convert }

// Import converts each file into a flow (and the blocks it needs). When a
// file cannot be converted in full, the result holds no files, unless
// opts.Partial; files that cannot be read as any format stop an import
// even then.
func Import(files []File, opts Options) (*Result, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	res := &Result{}
	var blockSrcs []*Source
	for _, b := range opts.Blocks {
		s, d := ParseSource(b.Name, b.Bytes)
		diags = append(diags, d...)
		if s != nil {
			blockSrcs = append(blockSrcs, s)
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	// Each file stands alone: with --partial, one that cannot be
	// converted at all (its diagnostics stay errors) keeps none of the
	// others from being written.
	var fileErrs []*hcl.Diagnostic
	written := map[string]string{} // path → the file it came from
	batch := batchWorkflows(files)
	for _, f := range files {
		out, secrets, next, d, fatal := importFile(f, opts, blockSrcs, batch)
		for _, o := range out {
			prev, ok := written[o.Name]
			if !ok {
				continue
			}
			if prevFile := findFile(res.Files, o.Name); prevFile != nil && string(prevFile.Bytes) == string(o.Bytes) {
				continue // the same block file, needed by two flows
			}
			d = append(d, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Two flows with one name",
				Detail:   fmt.Sprintf("%s and %s would both be written to %s; rename one of them in its source.", prev, f.Name, o.Name),
			})
			fatal = true
		}
		diags = append(diags, d...)
		if fatal {
			for _, e := range d {
				if e.Severity == hcl.DiagError {
					fileErrs = append(fileErrs, e)
				}
			}
			continue
		}
		for _, o := range out {
			if _, ok := written[o.Name]; !ok {
				written[o.Name] = f.Name
				res.Files = append(res.Files, o)
			}
		}
		res.Secrets = append(res.Secrets, secrets...)
		res.Next = append(res.Next, next...)
	}
	if diags.HasErrors() && (!opts.Partial || len(res.Files) == 0) {
		return nil, diags
	}
	for _, d := range diags {
		if !slices.Contains(fileErrs, d) {
			d.Severity = hcl.DiagWarning
		}
	}
	return res, diags
}

// importFile converts one file; fatal when it cannot be converted at
// all, not even with --partial (nothing of it is written).
func importFile(f File, opts Options, blockSrcs []*Source, batch map[string]*Called) (out []File, secrets []Secret, next []string, diags hcl.Diagnostics, fatal bool) {
	src, d := ParseSource(f.Name, f.Bytes)
	diags = append(diags, d...)
	if src == nil {
		return nil, nil, nil, diags, true
	}
	format, d := detect(src, opts.From)
	diags = append(diags, d...)
	if d.HasErrors() {
		return nil, nil, nil, diags, true
	}
	c := newConv(src, format)
	c.Batch = batch
	convert := converters[format]
	if convert == nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown format",
			Detail: fmt.Sprintf("%s is %s, and this program has no converter for it (it does not import importer/%s).", src.Name, describe(format), format)})
		return nil, nil, nil, diags, true
	}
	convert(c, blockSrcs)
	diags = append(diags, c.Diags...)
	if c.Fatal {
		return nil, nil, nil, diags, true
	}
	out, d = c.File.render()
	var beside func(f *flowFile)
	beside = func(f *flowFile) {
		for _, sub := range f.Flows {
			o, sd := sub.render()
			out = append(out, o...)
			d = append(d, sd...)
			beside(sub)
		}
	}
	beside(c.File)
	out = append(out, c.File.Beside...)
	diags = append(diags, d...)
	if d.HasErrors() {
		return nil, nil, nil, diags, true
	}
	return out, c.File.secretList(), c.File.Next, diags, false
}

// Called is a workflow of the batch that another may run by its id (n8n
// exports carry one): the file and the name of the flow it becomes.
type Called struct {
	File string
	Root *JV
	Flow string
}

// batchWorkflows are the workflows of the batch by their ids, known
// before any is converted: a workflow may run one that comes after it.
// An id that two files carry names neither.
func batchWorkflows(files []File) map[string]*Called {
	out := map[string]*Called{}
	twice := map[string]bool{}
	for _, f := range files {
		src, d := ParseSource(f.Name, f.Bytes)
		if src == nil || d.HasErrors() || src.Root.Kind != 'o' {
			continue
		}
		key := IDText(src.Root.Get("id"))
		if key == "" {
			continue
		}
		if out[key] != nil {
			twice[key] = true
			continue
		}
		c := newConv(src, N8N)
		out[key] = &Called{File: f.Name, Root: src.Root, Flow: c.FlowName(src.Root.Text("name"), "imported_workflow")}
	}
	for k := range twice {
		delete(out, k)
	}
	return out
}

// IDText is an id written as a string or a number, or "".
func IDText(v *JV) string {
	switch {
	case v == nil:
		return ""
	case v.Kind == 's':
		return v.Str
	case v.Kind == 'n':
		return v.Num
	}
	return ""
}

func findFile(files []File, name string) *File {
	for i := range files {
		if files[i].Name == name {
			return &files[i]
		}
	}
	return nil
}

// detect finds the format from the shape of the file, or checks the one
// forced.
func detect(src *Source, from Format) (Format, hcl.Diagnostics) {
	root := src.Root
	var found Format
	if root.Kind == 'o' {
		switch {
		case root.Get("steps") != nil && root.Get("steps").Kind == 'a':
			found = AnythingLLM
		case root.Get("connections") != nil || n8nNodes(root):
			found = N8N
		case root.Get("nodes") != nil && (root.Get("edges") != nil || agentflowNodes(root)):
			found = AgentFlow
		}
	}
	if from != "" {
		if !slices.Contains(Formats, from) {
			return "", hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unknown format",
				Detail: fmt.Sprintf("%q is not a format import reads: use one of %s.", from, formatList())}}
		}
		if found != "" && found != from {
			rng := src.rangeOf(root.Rng.Start.Byte, root.Rng.Start.Byte+1)
			return "", hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Not an " + string(from) + " file",
				Detail:  fmt.Sprintf("%s reads as %s, not %s (--from %s).", src.Name, describe(found), describe(from), from),
				Subject: &rng}}
		}
		return from, nil
	}
	if found == "" {
		rng := src.rangeOf(root.Rng.Start.Byte, root.Rng.Start.Byte+1)
		return "", hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unknown source format",
			Detail: fmt.Sprintf("%s is none of the formats import reads: an AnythingLLM agent flow has steps, an AgentFlow pipeline nodes with block_id and edges, an n8n workflow nodes and connections. Use --from (%s) to say which it is.",
				src.Name, formatList()),
			Subject: &rng}}
	}
	return found, nil
}

func formatList() string {
	var s []string
	for _, f := range Formats {
		s = append(s, string(f))
	}
	return strings.Join(s, ", ")
}

func describe(f Format) string {
	switch f {
	case AnythingLLM:
		return "an AnythingLLM agent flow"
	case AgentFlow:
		return "an AgentFlow pipeline"
	}
	return "an n8n workflow"
}

func n8nNodes(root *JV) bool {
	for _, n := range root.Items("nodes") {
		if strings.Contains(n.Text("type"), ".") && n.Get("parameters") != nil {
			return true
		}
	}
	return false
}

func agentflowNodes(root *JV) bool {
	for _, n := range root.Items("nodes") {
		if n.Get("block_id") != nil {
			return true
		}
	}
	return false
}

// render writes the flow file and its block files, formatted.
func (f *flowFile) render() ([]File, hcl.Diagnostics) {
	var out []File
	var diags hcl.Diagnostics
	add := func(name string, src []byte) {
		formatted, d := lang.Format(f.redact(src), name)
		if d.HasErrors() {
			// A bug of the importer: the generated text must parse.
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Generated HCL does not parse",
				Detail: fmt.Sprintf("flowctl import generated %s with a syntax error (%s); please report it with the source file.", name, d.Error())})
			return
		}
		if _, d := hclsyntax.ParseConfig(formatted, name, hcl.InitialPos); d.HasErrors() {
			diags = append(diags, d...)
			return
		}
		out = append(out, File{Name: name, Bytes: formatted})
	}
	add(f.Name+".flow.hcl", f.flowBytes())
	for _, b := range f.BlockFiles {
		if b.Fixed != nil {
			out = append(out, File{Name: path.Join("blocks", b.Name+".block.hcl"), Bytes: b.Fixed()})
			continue
		}
		add(path.Join("blocks", b.Name+".block.hcl"), b.Bytes())
	}
	return out, diags
}
