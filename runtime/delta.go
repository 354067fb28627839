package runtime

import (
	"strings"
	"sync"
	"time"
)

// deltas relays the text of a streaming llm step instance's reply as
// StepDelta events (docs/llm.md, "Streaming"), with the run's secrets
// redacted. A secret can come split across chunks, so the end of the text
// so far that could be the start of a secret is held back until the next
// chunk says what it is, or the instance ends (flush).
type deltas struct {
	r    *run
	step string
	key  Key

	mu      sync.Mutex
	held    string
	sent    bool // some text went out
	attempt int  // the attempt of the text so far
}

// relay is the blocks.Call.Delta of an attempt of the instance.
func (d *deltas) relay(attempt int) func(text string, reset bool) {
	return func(text string, reset bool) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if attempt != d.attempt {
			// Another attempt's reply replaces the last one's.
			reset = reset || d.sent
			d.attempt = attempt
		}
		if reset {
			d.held = ""
		}
		buf := d.r.redact.redact(d.held + text)
		n := d.r.redact.pending(buf)
		out := buf[:len(buf)-n]
		d.held = buf[len(buf)-n:]
		if out == "" && !reset {
			return
		}
		d.sent = true
		emit(d.r, StepDelta{Time: time.Now(), Step: d.step, Instance: d.key, Text: out, Reset: reset})
	}
}

// flush relays what was held back: the instance has ended, so it is not
// the start of a secret.
func (d *deltas) flush() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.held == "" {
		return
	}
	emit(d.r, StepDelta{Time: time.Now(), Step: d.step, Instance: d.key, Text: d.r.redact.redact(d.held)})
	d.held = ""
}

// pending is the length of the longest end of s that is the start, but
// not the whole, of a text the redactor replaces: it may be a secret whose
// rest has not come yet.
func (r *redactor) pending(s string) int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	longest := 0
	consider := func(f string) {
		for n := min(len(f)-1, len(s)); n > longest; n-- {
			if strings.HasSuffix(s, f[:n]) {
				longest = n
				return
			}
		}
	}
	for _, f := range r.secrets {
		consider(f)
	}
	if r.bools {
		consider("true")
		consider("false")
	}
	return longest
}
