package compiler

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/deps"
)

// A block's fingerprint: what its results in the cache depend on.

// builtinVersion changes when a built-in block's behaviour changes, so
// that cached results of the old behaviour are not reused.
const builtinVersion = "1"

func (c *compilation) fingerprints() {
	files := c.opts.Parser.Files()
	c.prog.Fingerprints = map[*blocks.Block]string{}
	for _, b := range c.prog.Registry.All() {
		h := sha256.New()
		if b.Builtin() {
			h.Write([]byte("builtin\x00" + b.Name + "\x00" + builtinVersion))
		} else {
			r := b.Def.BodyRange
			if f, ok := files[r.Filename]; ok && f != nil && r.End.Byte <= len(f.Bytes) && r.Start.Byte <= r.End.Byte {
				h.Write(f.Bytes[r.Start.Byte:r.End.Byte])
			}
			h.Write([]byte{0})
			h.Write([]byte(b.Def.Source))
			if len(b.Def.Requirements) > 0 {
				// The exact packages it runs with: a new lock is a new
				// version of the block.
				if e, err := deps.PythonOf(b.Def.DeclRange.Filename, b.Def.Requirements); err == nil {
					h.Write([]byte("\x00packages\x00" + e.Hash()))
				}
			}
			if len(b.Def.Packages) > 0 {
				if e, err := deps.JSOf(b.Def.DeclRange.Filename, b.Def.Packages); err == nil {
					h.Write([]byte("\x00js packages\x00" + e.Hash()))
				}
			}
			if len(b.Def.Require) > 0 {
				if e, err := deps.GoOf(b.Def.DeclRange.Filename, b.Def.Require); err == nil {
					h.Write([]byte("\x00go modules\x00" + e.Hash()))
				}
			}
		}
		c.prog.Fingerprints[b] = hex.EncodeToString(h.Sum(nil))
	}
}
