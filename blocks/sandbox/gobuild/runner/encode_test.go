package runner

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestEncode: a reply with outputs is the JSON a marshalled message would
// be, outputs put in as they are (however deep).
func TestEncode(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for _, o := range []Outcome{
		{Outputs: map[string]json.RawMessage{"a": json.RawMessage(`1`), "b": json.RawMessage(`{"x":[true,null]}`)}},
		{Outputs: map[string]json.RawMessage{"a": json.RawMessage(`"s"`)}, BadJSON: map[string]string{"f": "json: unsupported type: func()"}},
		{Outputs: map[string]json.RawMessage{"deep": json.RawMessage(deep)}},
		{NilMap: true},
		{HasErr: true, Err: "no good"},
	} {
		b, err := encode(message{ID: 7, Done: true, Outcome: &o, Recycle: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := o.Outputs["deep"]; ok {
			if !strings.Contains(string(b), `"outputs":{"deep":`+deep+`}}}`) {
				t.Errorf("deep output not put in as it is")
			}
			continue
		}
		var got message
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if got.ID != 7 || !got.Done || !got.Recycle || !reflect.DeepEqual(*got.Outcome, o) {
			t.Errorf("%s decodes to %+v", b, got.Outcome)
		}
	}
}
