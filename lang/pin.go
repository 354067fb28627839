package lang

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/hashicorp/hcl/v2"
)

// A parser can be pinned to a version of a flow's sources (a run's, kept
// in the state): the files of the version are read from it rather than
// from the disk, and in the directories the version covers (the flow's
// and its blocks/) a file that is not in it does not exist. What the
// version does not cover — registries elsewhere, data files read with
// file() — is read from the disk.

// Pin pins the parser to files, by path relative to dir (slash-separated),
// before it reads anything.
func (p *Parser) Pin(dir string, files map[string][]byte) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	p.pinned = make(map[string][]byte, len(files))
	p.pinnedDirs = map[string]bool{abs: true, filepath.Join(abs, "blocks"): true}
	for rel, src := range files {
		path := filepath.Join(abs, filepath.FromSlash(rel))
		p.pinned[path] = src
		p.pinnedDirs[filepath.Dir(path)] = true
	}
}

// Pinned reports whether the parser is pinned to a version.
func (p *Parser) Pinned() bool { return p.pinned != nil }

// pinnedFile is the pinned source of path, and whether path is in a
// directory the version covers.
func (p *Parser) pinnedFile(path string) (src []byte, ok, covered bool) {
	if p.pinned == nil {
		return nil, false, false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, false, false
	}
	src, ok = p.pinned[abs]
	return src, ok, p.pinnedDirs[filepath.Dir(abs)]
}

// readSource reads a source file (a flow or block file): from the
// pinned version when it covers the file's directory, else from the disk.
func (p *Parser) readSource(path string) ([]byte, error) {
	if src, ok, covered := p.pinnedFile(path); ok {
		return src, nil
	} else if covered {
		return nil, &os.PathError{Op: "open", Path: path, Err: os.ErrNotExist}
	}
	return os.ReadFile(path)
}

// Exists reports whether a source file exists: in the pinned version for
// a directory it covers, else on the disk.
func (p *Parser) Exists(path string) bool {
	if _, ok, covered := p.pinnedFile(path); covered {
		return ok
	}
	_, err := os.Stat(path)
	return err == nil
}

// Glob is filepath.Glob of a pattern whose directory part has no
// wildcards, from the pinned version when it covers the directory.
func (p *Parser) Glob(pattern string) []string {
	dir := filepath.Dir(pattern)
	if absDir, err := filepath.Abs(dir); err == nil && p.pinned != nil && p.pinnedDirs[absDir] {
		var out []string
		for path := range p.pinned {
			if filepath.Dir(path) != absDir {
				continue
			}
			if ok, _ := filepath.Match(filepath.Base(pattern), filepath.Base(path)); ok {
				out = append(out, filepath.Join(dir, filepath.Base(path)))
			}
		}
		slices.Sort(out)
		return out
	}
	out, _ := filepath.Glob(pattern)
	return out
}

// PinSources gives the block definitions whose code is in a source_file
// that the pinned version holds that version's code, and drops the
// diagnostics of reading the file from the disk (gone since, say).
func (p *Parser) PinSources(defs []*BlockDef, diags hcl.Diagnostics) hcl.Diagnostics {
	if p.pinned == nil {
		return diags
	}
	for _, def := range defs {
		if def == nil || def.SourceFile == "" || filepath.IsAbs(def.SourceFile) || !filepath.IsLocal(def.SourceFile) {
			continue
		}
		path := filepath.Join(filepath.Dir(def.DeclRange.Filename), def.SourceFile)
		src, ok, _ := p.pinnedFile(path)
		if !ok {
			continue
		}
		def.Source = string(src)
		def.SourceRange = hcl.Range{Filename: path, Start: hcl.InitialPos, End: hcl.InitialPos}
		def.SourceLine = 1
		diags = slices.DeleteFunc(diags, func(d *hcl.Diagnostic) bool {
			return d.Summary == "Invalid source_file" && d.Subject != nil && d.Subject.Filename == def.DeclRange.Filename &&
				d.Subject.Start.Byte >= def.BodyRange.Start.Byte && d.Subject.End.Byte <= def.BodyRange.End.Byte
		})
	}
	return diags
}
