package isolate

import (
	"encoding/json"
	"testing"
)

// TestOutputsReply: a reply with outputs as a worker writes it is read
// into the same message, its outputs decoded, as encoding/json and
// decodeOutputs read it; any other line is left to them.
func TestOutputsReply(t *testing.T) {
	outs := map[string]json.RawMessage{
		"name": json.RawMessage(`"ADA \"L\" é"`), "id": json.RawMessage(`7`),
		"list": json.RawMessage(`[1,{"a":null}]`), "big": json.RawMessage(`1e400`),
	}
	for _, m := range []message{
		{ID: 12, Done: true, Outputs: outs},
		{ID: 3, Done: true, Timeout: true, Recycle: true, Outputs: outs},
		{ID: 4, Done: true, Outputs: map[string]json.RawMessage{}},
	} {
		line, err := encodeReply(m)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := outputsReply(line)
		if !ok {
			t.Fatalf("%s was not read", line)
		}
		want, err := decodeOutputs(m.Outputs)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != m.ID || !got.Done || got.Timeout != m.Timeout || got.Recycle != m.Recycle || len(got.values) != len(want) {
			t.Errorf("%s: read %+v", line, got)
		}
		for k, v := range want {
			if !got.values[k].RawEquals(v) {
				t.Errorf("%s: output %s = %#v, want %#v", line, k, got.values[k], v)
			}
		}
	}
	for _, line := range []string{
		`{"id":1,"done":true,"error":"boom"}` + "\n",
		`{"id":1,"log":"x"}` + "\n",
		`{"hello":true}` + "\n",
		`{"id":1,"done":true,"outputs":{"a":1}` + "\n",
		`{"id":1,"done":true,"outputs":[1]}` + "\n",
		`{"id":x,"done":true,"outputs":{}}` + "\n",
		`{"id":1,"done":true,"outputs":{"a":1},"extra":2}` + "\n",
	} {
		if m, ok := outputsReply([]byte(line)); ok {
			t.Errorf("%q was read as %+v", line, m)
		}
	}
}
