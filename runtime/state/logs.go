package state

import "time"

// LogsPoll is how often FollowLogs looks at the state while the run runs.
const LogsPoll = 200 * time.Millisecond

// FollowLogs hands show the finished step instances of run that printed
// something (their Log), each once, in the order they started: those of
// one step, or one instance as step[key], when step is set. With follow,
// it looks again every LogsPoll while the run is running, and until the
// instances that finished with it are shown (runs logs --follow).
func (s *Store) FollowLogs(run *Run, step string, follow bool, show func(*StepResult)) error {
	shown := map[string]bool{}
	for {
		steps, err := s.Steps(run.ID)
		if err != nil {
			return err
		}
		for _, sr := range steps {
			label := sr.Label()
			if shown[label] || (step != "" && step != sr.Step && step != label) || sr.FinishedAt.IsZero() {
				continue
			}
			shown[label] = true
			if sr.Log != "" {
				show(sr)
			}
		}
		if !follow {
			return nil
		}
		if run, err = s.Run(run.ID); err != nil {
			return err
		}
		if run.Status != "running" {
			if !shownAll(steps, shown) {
				continue // the last instances finished with the run
			}
			return nil
		}
		time.Sleep(LogsPoll)
	}
}

func shownAll(steps []*StepResult, shown map[string]bool) bool {
	for _, sr := range steps {
		if !sr.FinishedAt.IsZero() && !shown[sr.Label()] {
			return false
		}
	}
	return true
}
