package views

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/flowctl/flowctl/runtime/event"
)

// A for_each step's instances, which apply prints as one line of counts
// by status (view_apply.go prints the rest of a run).

// A stepGroup is a step with for_each whose instances are ending: how
// many ended each way, and the instances that failed as another did.
type stepGroup struct {
	counts map[string]int // by status, or "kept"
	n      int
	first  time.Time // when its first instance ended
	// same are the instances that failed as the first (the key) did.
	same map[string][]string
}

// group counts an instance of a step with for_each in its step's line,
// and reports whether the instance has a line of its own: with verbose,
// and for the first failure of each kind (shown in full).
func (v *ApplyHuman) group(e event.StepFinished, label string) bool {
	if v.groups == nil {
		v.groups = map[string]*stepGroup{}
	}
	g := v.groups[e.Step]
	if g == nil {
		g = &stepGroup{counts: map[string]int{}, first: e.Time, same: map[string][]string{}}
		v.groups[e.Step] = g
	}
	g.n++
	status := string(e.Status)
	if e.Resumed {
		status = "kept"
	}
	g.counts[status]++
	if v.verbose {
		return true
	}
	if e.Status != event.StatusFailed {
		return false // counted in the step's line
	}
	// The first failure of each kind has its line, which records it
	// (sameFailures); the others are listed under the step's line.
	if first, ok := v.failures[e.Step+"\x00"+e.Error]; ok {
		g.same[first] = append(g.same[first], label)
		return false
	}
	return true
}

// groupOrder is the order of the counts in a step's line, after the
// largest first.
var groupOrder = []string{"ok", "cached", "kept", "skipped", "failed", "cancelled"}

// endGroup prints the line of a step with for_each whose instances have
// ended: its status, counts and how long it took ("norm[*]  4,998
// cached, 2 ok  (5,000 instances, 1.2s)"), then the instances that failed
// as others did. A step of whose instances nothing was seen (none) has
// no line.
func (v *ApplyHuman) endGroup(step string, took time.Duration, instances int) {
	g := v.groups[step]
	if g == nil {
		return
	}
	delete(v.groups, step)
	status := event.StatusOK
	switch {
	case g.counts["failed"] > 0:
		status = event.StatusFailed
	case g.counts["cancelled"] > 0:
		status = event.StatusCancelled
	case g.counts["ok"] > 0 || g.counts["kept"] > 0:
	case g.counts["cached"] > 0:
		status = event.StatusCached
	case g.counts["skipped"] > 0:
		status = event.StatusSkipped
	}
	names := slices.Clone(groupOrder)
	sort.SliceStable(names, func(i, j int) bool { return g.counts[names[i]] > g.counts[names[j]] })
	var parts []string
	for _, name := range names {
		if n := g.counts[name]; n > 0 {
			parts = append(parts, comma(n)+" "+name)
		}
	}
	instances = max(instances, g.n)
	about := commaPlural(instances, "instance", "instances")
	if took > 0 {
		about += ", " + FormatDuration(took)
	}
	line := fmt.Sprintf("  %s %-9s %-*s  %s  (%s)", statusMarks[status], status, v.labels, step+"[*]", strings.Join(parts, ", "), about)
	if status == event.StatusCached && v.color {
		line = dim(line)
	}
	fmt.Fprintln(v.w, line)
	firsts := slices.Collect(maps.Keys(g.same))
	event.SortLabels(firsts)
	for _, f := range firsts {
		labels := g.same[f]
		event.SortLabels(labels)
		fmt.Fprintf(v.w, "      %s and %s\n", f, event.SameWay(labels))
	}
}

// endGroups prints the lines of the steps with for_each whose end the
// engine did not report (StepEnded), in the order of their names, when
// the run ends or waits.
func (v *ApplyHuman) endGroups() {
	for _, step := range slices.Sorted(maps.Keys(v.groups)) {
		g := v.groups[step]
		v.endGroup(step, time.Since(g.first), g.n)
	}
}

// countsText is how many step instances ended each way.
func (v *ApplyHuman) countsText() string {
	var parts []string
	for _, st := range []event.Status{event.StatusOK, event.StatusCached, event.StatusSkipped, event.StatusFailed, event.StatusCancelled, event.StatusWaiting} {
		if n := v.counts[st]; n > 0 {
			parts = append(parts, comma(n)+" "+string(st))
		}
	}
	if len(parts) == 0 {
		return "no steps"
	}
	return strings.Join(parts, ", ")
}
