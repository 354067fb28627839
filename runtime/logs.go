package runtime

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// MaxStepLog bounds what one step instance's log keeps (and reports as
// step_log events): lines beyond it are counted, and the log ends with a
// line saying how many were left out.
const MaxStepLog = 64 << 10

// instanceLog collects the lines an instance prints, across its attempts.
type instanceLog struct {
	r    *run
	step string
	key  Key

	mu      sync.Mutex
	b       strings.Builder
	dropped int
}

// newInstanceLog is the log of an instance of a step whose block can print
// (go and js code; built-in blocks print nothing).
func (r *run) newInstanceLog(step string, key Key) *instanceLog {
	return &instanceLog{r: r, step: step, key: key}
}

// line takes a line the block printed.
func (l *instanceLog) line(s string) {
	s = l.r.redact.redact(s)
	l.mu.Lock()
	if l.b.Len()+len(s)+1 > MaxStepLog {
		l.dropped++
		l.mu.Unlock()
		return
	}
	if l.b.Len() > 0 {
		l.b.WriteByte('\n')
	}
	l.b.WriteString(s)
	l.mu.Unlock()
	emit(l.r, StepLog{Time: time.Now(), Step: l.step, Instance: l.key, Stream: "stdout", Line: s})
}

// text is the log as stored: the lines, and a marker when some were left
// out.
func (l *instanceLog) text() string {
	if l == nil {
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dropped > 0 {
		return l.b.String() + fmt.Sprintf("\n… (%d more lines not kept: a step's log keeps %d KiB)", l.dropped, MaxStepLog>>10)
	}
	return l.b.String()
}
