package state

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// TestEvents: a run's events are kept in order, read after a sequence
// number, in pages, and a repeated number replaces its event.
func TestEvents(t *testing.T) {
	s := openStore(t)
	run := createRun(t, s, "", "f", time.Time{})
	other := createRun(t, s, "", "f", time.Time{})
	release := blockWriter(t, s)
	for i := 1; i <= 2*rowsPerStatement+5; i++ {
		s.RecordEvent(Event{RunID: run.ID, Seq: int64(i), Type: "step_finished", Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))})
	}
	s.RecordEvent(Event{RunID: other.ID, Seq: 1, Type: "run_started", Data: json.RawMessage(`{}`)})
	release()
	flush(t, s)
	s.RecordEvent(Event{RunID: run.ID, Seq: 3, Type: "replaced", Data: json.RawMessage(`{"n":"three"}`)})
	flush(t, s)

	all, err := s.Events(run.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2*rowsPerStatement+5 || all[0].Seq != 1 || all[len(all)-1].Seq != int64(len(all)) {
		t.Fatalf("%d events, first %v", len(all), all[0])
	}
	if all[2].Type != "replaced" || string(all[2].Data) != `{"n":"three"}` {
		t.Errorf("event 3: %+v", all[2])
	}
	page, err := s.Events(run.ID, 10, 5)
	if err != nil || len(page) != 5 || page[0].Seq != 11 || page[4].Seq != 15 {
		t.Errorf("after 10, 5 of them: %+v, %v", page, err)
	}
	if o, err := s.Events(other.ID, 0, 0); err != nil || len(o) != 1 || o[0].Type != "run_started" {
		t.Errorf("the other run's: %+v, %v", o, err)
	}
	if none, err := s.Events("nope", 0, 0); err != nil || len(none) != 0 {
		t.Errorf("an unknown run's: %+v, %v", none, err)
	}
}

// TestScheduleFired: when a schedule last fired is kept per flow and name.
func TestScheduleFired(t *testing.T) {
	s := openStore(t)
	if _, ok, err := s.ScheduleFired("f", "nightly"); ok || err != nil {
		t.Fatalf("before: %v %v", ok, err)
	}
	at := time.Unix(1700000000, 123)
	for _, when := range []time.Time{at.Add(-time.Hour), at} {
		if err := s.SetScheduleFired("f", "nightly", when); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetScheduleFired("g", "nightly", at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := s.ScheduleFired("f", "nightly"); !ok || err != nil || !got.Equal(at) {
		t.Errorf("after: %v %v %v", got, ok, err)
	}
}
