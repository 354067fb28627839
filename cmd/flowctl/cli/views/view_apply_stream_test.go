package views

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/runtime/event"
)

// TestApplyHumanStreams: on a terminal, the last lines a step's model has
// streamed show under its row in the live table, a reset starts them
// over, and a model without a price is said at once.
func TestApplyHumanStreams(t *testing.T) {
	var out bytes.Buffer
	v := NewApplyHuman(&out, false, 8, false)
	v.live, v.width = true, 80 // a terminal, without its ticker
	now := time.Now()
	v.Event(event.StepStarted{Time: now, Step: "say", Attempt: 1})
	v.Event(event.StepDelta{Time: now, Step: "say", Text: "lost"})
	v.Event(event.StepDelta{Time: now, Step: "say", Text: "Dear Ana,\n\nthanks for", Reset: true})
	v.Event(event.StepDelta{Time: now, Step: "say", Text: " the \x1b[31mnote"})
	v.Event(event.StepNotice{Time: now, Step: "say", Kind: blocks.NoticePrice, Message: `model "m" has no price`})
	got := out.String()
	last := got[strings.LastIndex(got, "running, 0 finished"):]
	if !strings.Contains(last, "│ Dear Ana,\n") || !strings.Contains(last, "│ thanks for the \\x1b[31mnote\n") || strings.Contains(last, "lost") {
		t.Errorf("the live table:\n%s", last)
	}
	if !strings.Contains(got, `say │ model "m" has no price`) {
		t.Errorf("the price notice is not shown:\n%s", got)
	}
}
