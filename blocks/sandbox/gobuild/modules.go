package gobuild

import (
	"github.com/flowctl/flowctl/blocks/sandbox"
	"github.com/flowctl/flowctl/blocks/sandbox/deps"
	"github.com/flowctl/flowctl/lang"
)

// modules are the locked modules a compiled block requires; nil for a
// block without require, whose program is the standard library only.
type modules struct {
	entry *deps.GoEntry
}

// modulesOf returns the locked modules of a block's require, from the
// lock file beside the block's file (deps.GoOf): a block whose require is
// not locked is refused (a *sandbox.Error at its require argument that
// wraps a *deps.NotLockedError).
func modulesOf(def *lang.BlockDef) (*modules, error) {
	if len(def.Require) == 0 {
		return nil, nil
	}
	e, err := deps.GoOf(def.DeclRange.Filename, def.Require)
	if err != nil {
		return nil, &sandbox.Error{Block: def.Name, Text: ": " + err.Error(), Range: def.RequireRange, Err: err}
	}
	return &modules{entry: e}, nil
}

// keyPart is what the locked modules add to a program's cache key: a new
// lock is a new program.
func (m *modules) keyPart() string {
	if m == nil {
		return ""
	}
	return "\x00modules\x00" + m.entry.Hash()
}

// require is the program's go.mod require block: every module of the
// build list at the version the lock pins.
func (m *modules) require() string {
	if m == nil {
		return ""
	}
	r, _ := m.entry.GoModFiles()
	return "\n" + r
}

// sum is the program's go.sum: the lock's hashes, which the go command
// checks every module it downloads or finds in its cache against.
func (m *modules) sum() string {
	if m == nil {
		return ""
	}
	_, s := m.entry.GoModFiles()
	return s
}

// env is the go command's environment for a build: a block without
// modules downloads nothing (GOPROXY=off, as base says); one with
// modules gets them through the user's module proxy (GOPROXY from the
// environment), with go.mod and go.sum read-only (-mod=readonly): the
// go command refuses a module whose hash is not the lock's, and resolves
// nothing the lock does not pin.
func (m *modules) env(base []string) []string {
	if m == nil {
		return base
	}
	out := make([]string, 0, len(base)+1)
	for _, kv := range base {
		if kv != "GOPROXY=off" && kv != "GOFLAGS=" {
			out = append(out, kv)
		}
	}
	return append(out, "GOFLAGS=-mod=readonly")
}
