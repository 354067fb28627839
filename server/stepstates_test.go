package server

import (
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// TestStepStatesJS runs the dashboard's step states (web/views/steps.js)
// on a run that waits: an instance waits, is counted once, and ends; a
// resumed run's step_waiting of an instance that already waits changes
// nothing.
func TestStepStatesJS(t *testing.T) {
	src, err := webFiles.ReadFile("web/views/steps.js")
	if err != nil {
		t.Fatal(err)
	}
	vm := goja.New()
	if _, err := vm.RunString(strings.ReplaceAll(string(src), "export ", "")); err != nil {
		t.Fatal(err)
	}
	got, err := vm.RunString(`
const s = new StepStates();
const out = [];
const see = () => out.push(s.count('each') + ' ' + s.state('each'));
s.load({ steps: [
  { step: 'each', instance: 'a', status: 'waiting', started_at: '2026-01-01T00:00:00Z' },
  { step: 'each', instance: 'b', status: 'waiting', started_at: '2026-01-01T00:00:00Z' },
] });
see();
s.apply({ type: 'step_waiting', step: 'each', instance: 'a' }); see();
s.apply({ type: 'step_finished', step: 'each', instance: 'b', status: 'ok' }); see();
s.apply({ type: 'step_waiting', step: 'each', instance: 'c' }); see();
s.apply({ type: 'step_finished', step: 'each', instance: 'a', status: 'failed' });
s.apply({ type: 'step_finished', step: 'each', instance: 'c', status: 'ok' }); see();
s.apply({ type: 'step_started', step: 'solo', instance: null }); out.push(s.count('solo') + ' ' + s.state('solo'));
s.apply({ type: 'step_waiting', step: 'solo', instance: null }); out.push(s.count('solo') + ' ' + s.state('solo'));
out.join(', ');
`)
	if err != nil {
		t.Fatal(err)
	}
	want := "2 waiting, 2 waiting, 2 waiting, 3 waiting, 3 failed, 1 running, 1 waiting"
	if got.String() != want {
		t.Errorf("counts and states:\n got %s\nwant %s", got, want)
	}
}
