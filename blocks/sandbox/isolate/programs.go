package isolate

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/gorun"
	"github.com/flowctl/flowctl/lang"
)

// compiledResult turns the reply of a compiled block's program into the
// result or error the interpreted engine would give.
func compiledResult(c *pcall, m *message, maxOutput int) (*blocks.Result, error) {
	def := c.call.Block.Def
	switch {
	case m.Timeout:
		return nil, gorun.Stopped(def, c.execLine, context.DeadlineExceeded)
	case m.Outcome == nil:
		msg := m.Error
		if msg == "" {
			msg = "its program replied with no outcome"
		}
		return nil, fmt.Errorf("block %q: %s", def.Name, msg)
	}
	return gorun.Finish(def, c.execLine, *m.Outcome, c.call.Outputs, maxOutput)
}

// maxKnownBlocks bounds the definitions one worker is sent (watch mode
// sends a new one per edit); a worker that has seen that many is replaced.
const maxKnownBlocks = 256

// maxWires bounds the definitions whose wire form the pool keeps.
const maxWires = 1024

// wireEntry is a definition's wire form, its key and JSON, and the pace
// of its calls (see depth).
type wireEntry struct {
	key  string
	json []byte
	pace *atomic.Int64
}

// wireOf returns the wire form of a definition, made once.
func (p *Pool) wireOf(def *lang.BlockDef) (wireEntry, error) {
	if e, ok := p.wires.Load(def); ok {
		return e.(wireEntry), nil
	}
	p.forgetEarlier()
	wire := toWire(def)
	b, err := json.Marshal(wire)
	if err != nil {
		return wireEntry{}, err
	}
	e, _ := p.wires.LoadOrStore(def, wireEntry{key: blockKey(wire), json: b, pace: new(atomic.Int64)})
	return e.(wireEntry), nil
}

// outputsOf returns the JSON of a call's output fields, made once per
// field list.
func (p *Pool) outputsOf(fields []*lang.Field) ([]byte, error) {
	if len(fields) == 0 {
		return nil, nil
	}
	k := outputsKey{first: fields[0], n: len(fields)}
	if b, ok := p.wires.Load(k); ok {
		return b.([]byte), nil
	}
	p.forgetEarlier()
	b, err := outputsJSON(fields)
	if err != nil {
		return nil, err
	}
	p.wires.Store(k, b)
	return b, nil
}

// outputsKey identifies a list of output fields (a step's, or a block's).
type outputsKey struct {
	first *lang.Field
	n     int
}

// forgetEarlier drops what the pool has made of the definitions of
// earlier compilations (watch mode) once it holds too many.
func (p *Pool) forgetEarlier() {
	if p.wireCount.Add(1) > maxWires {
		p.wires.Clear()
		p.wireCount.Store(1)
	}
}
