package blocks

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// Registry is the set of blocks a flow can use, by name: the built-ins, then
// blocks defined inline in the flow, in blocks/*.block.hcl next to the flow,
// and in every --registry directory (docs/design.md, "Files").
type Registry struct {
	blocks []*Block
	byName map[string]*Block
	files  []string
	loaded map[string]bool // absolute paths of the files read
}

// NewRegistry returns a registry holding the built-in blocks.
func NewRegistry() *Registry {
	r := &Registry{byName: map[string]*Block{}}
	for _, b := range Builtins() {
		r.blocks = append(r.blocks, b)
		r.byName[b.Name] = b
	}
	return r
}

// Lookup returns the block named name, or nil.
func (r *Registry) Lookup(name string) *Block { return r.byName[name] }

// All returns every block, built-ins first, then in the order loaded.
func (r *Registry) All() []*Block { return r.blocks }

// Names returns every block name, sorted.
func (r *Registry) Names() []string { return lang.SortedKeys(r.byName) }

// Files lists the block files that were read, in order.
func (r *Registry) Files() []string { return r.files }

// AddDefs checks block definitions and adds them. A name that is already
// taken is an error pointing at both definitions.
func (r *Registry) AddDefs(defs []*lang.BlockDef) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, def := range defs {
		b, d := FromDef(def)
		diags = append(diags, d...)
		if prev, ok := r.byName[def.Name]; ok {
			if prev.Builtin() {
				diags = append(diags, lang.Error(def.NameRange, "Reserved block name",
					"%q is the name of a built-in block; a user block must have a name of its own.", def.Name)...)
			} else {
				diags = append(diags, lang.Error(def.NameRange, "Duplicate block definition",
					"A block named %q is already defined at %s; each block name is defined once across the flow, blocks/ and the registries.",
					def.Name, lang.RangeString(prev.Def.NameRange))...)
			}
			continue
		}
		r.blocks = append(r.blocks, b)
		r.byName[b.Name] = b
	}
	return diags
}

// LoadDir parses and adds every *.block.hcl file directly inside dir. A
// missing directory is an error when required is true and nothing otherwise.
func (r *Registry) LoadDir(parser *lang.Parser, dir string, required bool) hcl.Diagnostics {
	info, err := os.Stat(dir)
	switch {
	case err != nil && !required && len(parser.Glob(filepath.Join(dir, "*.block.hcl"))) > 0:
		// gone since the version the parser is pinned to (lang/pin.go)
	case err != nil && !required:
		return nil
	case err != nil:
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Registry directory not found",
			Detail:   "The registry directory " + dir + " could not be read: " + lang.PathErrorText(err) + ".",
		}}
	case err == nil && !info.IsDir():
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Registry is not a directory",
			Detail:   "The registry " + dir + " is a file; --registry names a directory of *.block.hcl files.",
		}}
	}
	matches := parser.Glob(filepath.Join(dir, "*.block.hcl"))
	sort.Strings(matches)
	var diags hcl.Diagnostics
	for _, path := range matches {
		abs, err := filepath.Abs(path)
		if err != nil {
			abs = path
		}
		if r.loaded[abs] {
			continue // the same file named twice, as blocks/ and a --registry
		}
		if r.loaded == nil {
			r.loaded = map[string]bool{}
		}
		r.loaded[abs] = true
		defs, d := ParseBlockFile(parser, path)
		diags = append(diags, d...)
		r.files = append(r.files, path)
		diags = append(diags, r.AddDefs(defs)...)
	}
	return diags
}

// ParseBlockFile parses and decodes one block file.
func ParseBlockFile(parser *lang.Parser, path string) ([]*lang.BlockDef, hcl.Diagnostics) {
	f, diags := parser.ParseFile(path)
	if diags.HasErrors() {
		return nil, diags
	}
	defs, d := lang.DecodeBlockFile(f)
	return defs, parser.PinSources(defs, append(diags, d...))
}

// LoadOptions says where a flow's registry comes from.
type LoadOptions struct {
	Parser       *lang.Parser
	FlowFile     string           // its directory's blocks/ is searched
	Inline       []*lang.BlockDef // definitions in the flow file itself
	RegistryDirs []string
}

// Load builds a flow's registry in the order docs/design.md ("Files") gives.
func Load(opts LoadOptions) (*Registry, hcl.Diagnostics) {
	r := NewRegistry()
	diags := r.AddDefs(opts.Inline)
	if opts.FlowFile != "" {
		diags = append(diags, r.LoadDir(opts.Parser, filepath.Join(filepath.Dir(opts.FlowFile), "blocks"), false)...)
	}
	for _, dir := range opts.RegistryDirs {
		diags = append(diags, r.LoadDir(opts.Parser, dir, true)...)
	}
	return r, diags
}

// ParseBlocks parses and decodes the block definitions in src, the text of
// a block file named filename (which need not exist), into blocks.
func ParseBlocks(src []byte, filename string) ([]*Block, hcl.Diagnostics) {
	f, diags := lang.NewParser().ParseSource(src, filename)
	if diags.HasErrors() {
		return nil, diags
	}
	defs, d := lang.DecodeBlockFile(f)
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, diags
	}
	var out []*Block
	for _, def := range defs {
		b, d := FromDef(def)
		diags = append(diags, d...)
		out = append(out, b)
	}
	return out, diags
}
