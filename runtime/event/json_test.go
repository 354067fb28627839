package event

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/zclconf/go-cty/cty"
)

// TestAppendEventJSON: the hand-written step events are what encoding/json
// writes of EventJSON's documents, byte for byte.
func TestAppendEventJSON(t *testing.T) {
	at := time.Date(2026, 11, 25, 16, 37, 5, 248162365, time.FixedZone("X", 3600))
	keys := []Key{NoKey, {Value: cty.NumberIntVal(0)}, {Value: cty.NumberIntVal(1234567)},
		{Value: cty.StringVal("plain")}, {Value: cty.StringVal("<a&b>\"q\"\\ \n\t\x01 é \u2028 \xff")}}
	var events []Event
	for _, k := range keys {
		events = append(events,
			StepStarted{Time: at, Step: "fetch", Instance: k, Attempt: 1},
			StepStarted{Time: at.Add(time.Nanosecond), Step: "a_b-c", Instance: k, Attempt: 12},
			StepFinished{Time: at, Step: "s", Instance: k, Status: StatusOK, Attempts: 1, Duration: 1500 * time.Microsecond},
			StepFinished{Time: time.Time{}, Step: "s", Instance: k, Status: StatusFailed, Attempts: 3, Duration: 2 * time.Second,
				Error: "bad <input> & \"quotes\"\n", Reason: "because", Resumed: true},
			StepFinished{Time: at, Step: "s", Instance: k, Status: StatusSkipped, Reason: "upstream c failed"},
			StepFinished{Time: at, Step: "s", Instance: k, Status: StatusOK, Attempts: 2, Retries: 3, Waited: 1020 * time.Millisecond},
		)
	}
	for _, e := range events {
		got, ok := AppendEventJSON([]byte("prefix"), e)
		if !ok {
			t.Fatalf("%#v: not appended", e)
		}
		_, doc := EventJSON(e)
		want, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != "prefix"+string(want) {
			t.Errorf("appended\n%s\nencoding/json\n%s", got[len("prefix"):], want)
		}
	}
	if _, ok := AppendEventJSON(nil, StepFinished{Usage: &blocks.Usage{}}); ok {
		t.Error("a step_finished with usage was appended")
	}
	if _, ok := AppendEventJSON(nil, RunStarted{}); ok {
		t.Error("run_started was appended")
	}
}
