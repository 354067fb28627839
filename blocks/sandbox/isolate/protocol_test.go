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

// TestKnownRequest: a request as the pool writes it after a block's first
// call is read into the request encoding/json reads; one with the block's
// definition, or in any other form, is left to encoding/json.
func TestKnownRequest(t *testing.T) {
	outs := []byte(`[{"name":"y","type":"number"}]`)
	for _, line := range [][]byte{
		appendRequest(nil, 7, "abc123", nil, outs, []byte(`"each[0]"`), []byte(`{"item":{"id":1,"name":"a \"q\" }{]["}}`), 30005, 2),
		appendRequest(nil, 8, "abc123", nil, nil, []byte(`"s\u003cx\u003e"`), []byte(`{}`), 0, 0),
		appendRequest(nil, 9, "k", nil, outs, []byte(`""`), []byte(`{"l":[1,[2,{"a":[]}]],"s":"é"}`), 1, 1),
	} {
		var want request
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatal(err)
		}
		got, ok := knownRequest(line)
		if !ok {
			t.Fatalf("%s was not read", line)
		}
		if got.ID != want.ID || got.BlockKey != want.BlockKey || got.Step != want.Step || got.Attempt != want.Attempt ||
			got.TimeoutMS != want.TimeoutMS || string(got.Inputs) != string(want.Inputs) || string(got.Outputs) != string(want.Outputs) || got.Block != nil {
			t.Errorf("%s:\n got %+v\nwant %+v", line, got, want)
		}
	}
	withDef := appendRequest(nil, 1, "k", []byte(`{"name":"b","runtime":"js","source":"x","source_range":{}}`), nil, []byte(`"s"`), []byte(`{}`), 0, 0)
	for _, line := range []string{
		string(withDef),
		`{"id":1,"block_key":"k","step":"s","inputs":{"a":1}` + "\n",
		`{"id":1,"block_key":"k","step":"s","inputs":{"a":"x}` + "\n",
		`{"id":1,"block_key":"k","step":"s","inputs":{},"extra":1}` + "\n",
		`{"id":-1,"block_key":"k","step":"s","inputs":{}}` + "\n",
	} {
		if req, ok := knownRequest([]byte(line)); ok {
			t.Errorf("%q was read as %+v", line, req)
		}
	}
}
