package state

import (
	"slices"
	"sort"
	"time"
)

// What flowctl runs show and list read of runs: a run with its step
// results and the runs its step instances started (RunTree), a step of
// many instances as counts by status (StepSummary), and the runs each run
// started (RunsBelow). The order of the steps, the flow file's, is the
// runtime's (runtime.OrderSteps): it compiles the flow.

// MaxListedInstances is how many instances of one step runs show lists: a
// step with more (a for_each over 100,000 items) is shown as one row of
// counts by status, followed by the instances that did not succeed, at
// most this many. runs show RUN --step STEP lists every instance.
const MaxListedInstances = 50

// MaxRunDepth bounds how deep runs show follows runs started by runs.
const MaxRunDepth = 8

// A StepSummary is a step that runs show summarizes: its counts by status.
type StepSummary struct {
	Step      string
	Counts    []StepCount // by status
	Instances int
	Listed    int // instances listed below the summary: those that did not succeed
}

// succeeded are the statuses of instances a summarized step does not list
// (runtime.StatusOK and runtime.StatusCached).
var succeeded = []string{"ok", "cached"}

// A RunTree is a run with its step results and the runs its step instances
// started (steps that use a flow, tool calls), by step instance label.
type RunTree struct {
	Run      *Run
	Steps    []*StepResult
	Children map[string][]*RunTree
	// Summaries are the steps of more than MaxListedInstances
	// instances, by the row that stands for each in Steps (LoadSteps).
	Summaries map[*StepResult]*StepSummary
	// Version is the version of its flow the run runs, nil when it
	// recorded none; Paused its pause, nil when it is not paused.
	Version *RunVersion
	Paused  *Pause
}

// LoadRunTree reads run with its steps (LoadSteps) and, to MaxRunDepth
// below depth, the runs its step instances started.
func (s *Store) LoadRunTree(run *Run, depth int) (*RunTree, error) {
	steps, summaries, err := s.LoadSteps(run.ID)
	if err != nil {
		return nil, err
	}
	t := &RunTree{Run: run, Steps: steps, Summaries: summaries}
	if t.Version, err = s.RunVersion(run.ID); err != nil {
		return nil, err
	}
	if t.Paused, err = s.Paused(run.ID); err != nil {
		return nil, err
	}
	if depth >= MaxRunDepth {
		return t, nil
	}
	kids, err := s.Children(run.ID)
	if err != nil {
		return nil, err
	}
	for _, k := range kids {
		kt, err := s.LoadRunTree(k, depth+1)
		if err != nil {
			return nil, err
		}
		if t.Children == nil {
			t.Children = map[string][]*RunTree{}
		}
		t.Children[k.ParentStep] = append(t.Children[k.ParentStep], kt)
	}
	return t, nil
}

// LoadSteps reads what runs show shows of a run's steps: every step result
// of the steps with at most MaxListedInstances instances; of the others a
// summary (by the row that stands for it in the order of the steps, a
// result of its own) and the instances that did not succeed.
func (s *Store) LoadSteps(runID string) ([]*StepResult, map[*StepResult]*StepSummary, error) {
	counts, err := s.StepCounts(runID)
	if err != nil {
		return nil, nil, err
	}
	var big []*StepSummary
	byStep := map[string]*StepSummary{}
	for _, c := range counts {
		sm := byStep[c.Step]
		if sm == nil {
			sm = &StepSummary{Step: c.Step}
			byStep[c.Step] = sm
			big = append(big, sm)
		}
		sm.Counts = append(sm.Counts, c)
		sm.Instances += c.Instances
	}
	big = slices.DeleteFunc(big, func(sm *StepSummary) bool { return sm.Instances <= MaxListedInstances })
	if len(big) == 0 {
		steps, err := s.Steps(runID)
		return steps, nil, err
	}
	names := make([]string, len(big))
	for i, sm := range big {
		names[i] = sm.Step
	}
	steps, err := s.StepResults(runID, StepQuery{Except: names})
	if err != nil {
		return nil, nil, err
	}
	summaries := map[*StepResult]*StepSummary{}
	for _, sm := range big {
		var failed []string
		for _, c := range sm.Counts {
			if !slices.Contains(succeeded, c.Status) {
				failed = append(failed, c.Status)
			}
		}
		var listed []*StepResult
		if len(failed) > 0 {
			if listed, err = s.StepResults(runID, StepQuery{Step: sm.Step, Statuses: failed, Limit: MaxListedInstances}); err != nil {
				return nil, nil, err
			}
		}
		sm.Listed = len(listed)
		row := &StepResult{Step: sm.Step, StartedAt: sm.First(), FinishedAt: sm.Last()}
		summaries[row] = sm
		steps = insertByStart(steps, append([]*StepResult{row}, listed...))
	}
	return steps, summaries, nil
}

// insertByStart inserts rows, in their order, before the first result of
// steps that started after the first of rows.
func insertByStart(steps, rows []*StepResult) []*StepResult {
	at := rows[0].StartedAt
	i := sort.Search(len(steps), func(i int) bool {
		s := steps[i].StartedAt
		return !at.IsZero() && (s.IsZero() || s.After(at))
	})
	out := make([]*StepResult, 0, len(steps)+len(rows))
	out = append(out, steps[:i]...)
	out = append(out, rows...)
	return append(out, steps[i:]...)
}

// First is when the summarized step's first instance started.
func (sm *StepSummary) First() time.Time {
	var t time.Time
	for _, c := range sm.Counts {
		if !c.Started.IsZero() && (t.IsZero() || c.Started.Before(t)) {
			t = c.Started
		}
	}
	return t
}

// Last is when the summarized step's last instance finished.
func (sm *StepSummary) Last() time.Time {
	var t time.Time
	for _, c := range sm.Counts {
		if c.Finished.After(t) {
			t = c.Finished
		}
	}
	return t
}

// Attempts is the most attempts one instance of the step made.
func (sm *StepSummary) Attempts() int {
	n := 0
	for _, c := range sm.Counts {
		n = max(n, c.Attempts)
	}
	return n
}

// Succeeded is how many instances of the step succeeded (ok or cached).
func (sm *StepSummary) Succeeded() int {
	n := 0
	for _, c := range sm.Counts {
		if slices.Contains(succeeded, c.Status) {
			n += c.Instances
		}
	}
	return n
}

// RunsBelow lists each run of top followed by the runs it started, depth
// first, down to depth levels below it (none when depth is 0, at most
// MaxRunDepth); depths is how far each run is from its top-level run.
func (s *Store) RunsBelow(top []*Run, depth int) (runs []*Run, depths map[string]int, err error) {
	depths = map[string]int{}
	depth = min(depth, MaxRunDepth)
	var add func(r *Run, d int) error
	add = func(r *Run, d int) error {
		runs = append(runs, r)
		depths[r.ID] = d
		if d >= depth {
			return nil
		}
		kids, err := s.Children(r.ID)
		if err != nil {
			return err
		}
		for _, k := range kids {
			if err := add(k, d+1); err != nil {
				return err
			}
		}
		return nil
	}
	for _, r := range top {
		if err := add(r, 0); err != nil {
			return nil, nil, err
		}
	}
	return runs, depths, nil
}

// Waits are the approvals not yet decided, by run ID: what the runs
// waiting for a decision wait for.
func (s *Store) Waits() (map[string][]*Approval, error) {
	open, err := s.Approvals("")
	if err != nil {
		return nil, err
	}
	waits := map[string][]*Approval{}
	for _, a := range open {
		if !a.Decided() {
			waits[a.RunID] = append(waits[a.RunID], a)
		}
	}
	return waits, nil
}

// RunWaits is what run waits for: its open approvals not yet decided,
// when it is waiting ("waiting", runtime.StatusWaiting).
func (s *Store) RunWaits(run *Run) ([]*Approval, error) {
	as, err := s.Approvals(run.ID)
	if err != nil {
		return nil, err
	}
	var waits []*Approval
	for _, a := range as {
		if !a.Closed && !a.Decided() && run.Status == "waiting" {
			waits = append(waits, a)
		}
	}
	return waits, nil
}

// Label is the step instance's label: step, or step[instance].
func (r *StepResult) Label() string {
	if r.Instance == "" {
		return r.Step
	}
	return r.Step + "[" + r.Instance + "]"
}
