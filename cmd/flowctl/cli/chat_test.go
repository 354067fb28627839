package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestChatExample applies examples/chat three times against a local
// OpenAI-compatible server: the second message of session ann is sent
// after the first turn (the user's message and the model's reply, as
// the memory kept them), and another session starts with none.
func TestChatExample(t *testing.T) {
	m := newRecordingModel(t, "Nice to meet you.")
	t.Setenv("OPENAI_BASE_URL", m.URL)
	t.Setenv("OPENAI_API_KEY", "")
	dir := filepath.Join(t.TempDir(), "chat")
	if err := os.CopyFS(dir, os.DirFS("../../../examples/chat")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, ".flowctl"))
	for _, in := range [][2]string{{"ann", "My name is Ann."}, {"ann", "What is my name?"}, {"bob", "Hi."}} {
		code, out, errOut := runCLI(t, "apply", "--auto-approve", "--json", dir, "--input", "session="+in[0], "--input", "message="+in[1])
		if code != 0 {
			t.Fatalf("apply %v exited %d:\n%s%s", in, code, out, errOut)
		}
	}
	bodies, _ := m.requests()
	if len(bodies) != 3 {
		t.Fatalf("%d requests; want 3", len(bodies))
	}
	type msg struct{ Role, Content string }
	conv := func(body map[string]any) []msg {
		raw, _ := json.Marshal(body["messages"])
		var out []msg
		json.Unmarshal(raw, &out)
		return out[1:] // after the system message
	}
	want := [][]msg{
		{{"user", "My name is Ann."}},
		{{"user", "My name is Ann."}, {"assistant", "Nice to meet you."}, {"user", "What is my name?"}},
		{{"user", "Hi."}},
	}
	for i, w := range want {
		got := conv(bodies[i])
		if len(got) != len(w) {
			t.Errorf("request %d has the messages %v; want %v", i+1, got, w)
			continue
		}
		for j := range w {
			if got[j] != w[j] {
				t.Errorf("request %d, message %d: %v; want %v", i+1, j, got[j], w[j])
			}
		}
		if bodies[i]["temperature"] != 0.0 {
			t.Errorf("request %d: temperature %v; want 0, sent", i+1, bodies[i]["temperature"])
		}
	}
}
