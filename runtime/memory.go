package runtime

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// loadMemory reads each memory's stored value, or its default. A value the
// state holds but cannot be read is an error at the memory's declaration,
// unless Options.ResetCorruptMemory says to start it over from its default
// (a warning); a value stored with another type (the declaration changed)
// starts over from the default with a warning.
func (r *run) loadMemory() (hcl.Diagnostics, error) {
	var stored map[string]json.RawMessage
	// A flow without memories reads none: a round trip per run for
	// nothing.
	if r.opts.Store != nil && len(r.prog.Memories) > 0 {
		var err error
		if stored, err = r.opts.Store.Memory(r.prog.Flow.Name, r.opts.Namespace); err != nil {
			return nil, fmt.Errorf("reading memory: %w", err)
		}
	}
	return r.readMemory(stored), nil
}

// readMemory sets each memory to its stored value, or its default (see
// loadMemory).
func (r *run) readMemory(stored map[string]json.RawMessage) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, m := range r.prog.Memories {
		r.memory[m.Name] = m.Default
		raw, ok := stored[m.Name]
		if !ok {
			continue
		}
		v, err := DecodeValue(raw)
		if err != nil {
			if r.opts.ResetCorruptMemory {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagWarning, Summary: "Memory reset",
					Detail: fmt.Sprintf("The stored value of memory %q (namespace %q) could not be read (%s), so it starts over from its default.",
						m.Name, r.opts.Namespace, trimDot(err.Error())),
					Subject: m.NameRange.Ptr(),
				})
				continue
			}
			diags = append(diags, lang.Error(m.NameRange, "Corrupt memory",
				"The stored value of memory %q (namespace %q) cannot be read: %s. Nothing ran. Apply with --reset-corrupt-memory to start it over from its default.",
				m.Name, r.opts.Namespace, trimDot(err.Error()))...)
			continue
		}
		if cv, err := lang.Convert(v, m.Type.Type); err != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning, Summary: "Memory reset",
				Detail: fmt.Sprintf("Memory %q (namespace %q) was stored as %s, which does not convert to its type now, %s, so it starts over from its default.",
					m.Name, r.opts.Namespace, lang.FriendlyTypeName(v.Type()), lang.FriendlyTypeName(m.Type.Type)),
				Subject: m.NameRange.Ptr(),
			})
		} else {
			r.memory[m.Name] = cv
		}
	}
	return diags
}

// saveMemory stores each memory's value after a successful run (docs/design.md, "Memory").
// The values are evaluated with the memories as stored at that moment, in
// the transaction that stores them: runs that end at the same time, in any
// process, each see the other's update (two runs counting add two).
func (r *run) saveMemory() {
	if r.opts.Store == nil || len(r.prog.Memories) == 0 {
		return
	}
	err := r.opts.Store.UpdateMemory(r.prog.Flow.Name, r.opts.Namespace, func(stored map[string]json.RawMessage) (map[string]json.RawMessage, error) {
		if diags := r.readMemory(stored); diags.HasErrors() {
			return nil, errors.New(DiagText(diags))
		}
		return r.memoryValues(), nil
	})
	if err != nil {
		r.addDiags(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Memory not saved", Detail: err.Error()}})
	}
}

// memoryValues evaluates the memories' new values, as stored.
func (r *run) memoryValues() map[string]json.RawMessage {
	values := map[string]json.RawMessage{}
	for _, m := range r.prog.Memories {
		if m.Value == nil {
			continue
		}
		v, _, diags := r.scope.Eval(m.Value, nil)
		if !diags.HasErrors() {
			var err error
			if v, err = lang.Convert(v, m.Type.Type); err != nil {
				diags = lang.Error(m.Value.Range(), "Invalid memory value",
					"The value of memory %q must be %s: %s.", m.Name, lang.FriendlyTypeName(m.Type.Type), lang.FormatConvertError(err))
			}
		}
		if diags.HasErrors() {
			r.addDiags(diags)
			continue
		}
		if lang.IsSensitive(v) {
			continue // the compiler rejects this; never store a secret
		}
		raw, err := EncodeValue(v)
		if err != nil {
			continue
		}
		values[m.Name] = raw
	}
	return values
}
