package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"

	"github.com/zclconf/go-cty/cty"
)

// A program's version is its sources: the flow file, its block files and
// the code files they name (source_file), and the same of the flows it
// uses, those inside the flow's directory (a registry elsewhere is not
// part of it). A source that holds a sensitive value is never kept. A run keeps the version it started with (the state stores
// it by hash), and is resumed with it (lang.Parser.Pin).

// keepSources keeps the sources the decode pass read, by absolute path,
// for Version.
func (c *compilation) keepSources() {
	p := c.prog
	files := c.opts.Parser.Files()
	p.sources = map[string][]byte{}
	add := func(name string, src []byte) {
		if abs, err := filepath.Abs(name); err == nil {
			p.sources[abs] = src
		}
	}
	names := append([]string{p.Filename}, p.Registry.Files()...)
	for _, name := range names {
		if f, ok := files[name]; ok && f != nil {
			add(name, f.Bytes)
		}
	}
	if c.opts.Source != nil {
		add(p.Filename, c.opts.Source)
	}
	for _, b := range p.Registry.All() {
		if b.Def != nil && b.Def.SourceFile != "" && b.Def.SourceRange.Filename != "" {
			add(b.Def.SourceRange.Filename, []byte(b.Def.Source))
		}
	}
}

// keepVersion computes the program's version once the flows it uses are
// compiled: its sources and theirs under its directory, by path relative
// to it, and their hash.
func (c *compilation) keepVersion() {
	p := c.prog
	dir, err := filepath.Abs(p.Dir)
	if err != nil {
		return
	}
	p.versionFiles = map[string][]byte{}
	seen := map[*Program]bool{}
	secret := false
	var walk func(q *Program)
	walk = func(q *Program) {
		if q == nil || seen[q] {
			return
		}
		seen[q] = true
		for _, in := range q.Inputs {
			secret = secret || (in.Sensitive && in.Default != cty.NilVal)
		}
		for path, src := range q.sources {
			if rel, err := filepath.Rel(dir, path); err == nil && filepath.IsLocal(rel) {
				p.versionFiles[filepath.ToSlash(rel)] = src
			}
		}
		for _, s := range q.Steps {
			walk(s.Flow)
			for _, t := range s.Tools {
				walk(t.Flow)
			}
		}
	}
	walk(p)
	if secret {
		// The source holds a sensitive value (an input's default), which
		// the state never does: no version is kept.
		p.versionFiles = nil
		return
	}
	h := sha256.New()
	names := make([]string, 0, len(p.versionFiles))
	for name := range p.versionFiles {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		h.Write([]byte(name))
		h.Write([]byte{0})
		h.Write(p.versionFiles[name])
		h.Write([]byte{0})
	}
	p.versionHash = hex.EncodeToString(h.Sum(nil))
}

// Version is the program's version: the content hash of its sources, and
// the sources by path relative to its directory (slash-separated), which
// the caller does not change. A flow whose source holds a sensitive value
// (a sensitive input's default; or a flow it uses does) has none: "".
func (p *Program) Version() (hash string, files map[string][]byte) {
	return p.versionHash, p.versionFiles
}
