package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

var askSchema = json.RawMessage(`{"type":"object","properties":{"ready":{"type":"boolean"}},"required":["ready"],"additionalProperties":false}`)

func askRequest() AskRequest {
	return AskRequest{
		Name: "clarify", Schema: askSchema, Strict: true, System: "Decide.",
		Messages: []Message{{RoleUser, "first"}, {RoleAssistant, `{"ready":false}`}, {RoleUser, "again"}},
	}
}

func TestAskSendsSchemaAndConversation(t *testing.T) {
	s := newServer(t, ok("Sure:\n```json\n{\"ready\": true,}\n```"))
	var log bytes.Buffer
	cfg := testConfig(s)
	cfg.LogPrompts = &log
	e := NewExecutor(cfg)
	req := askRequest()
	req.Model = "other-model"
	reply, usage, err := e.Ask(testCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	if string(reply) != `{"ready":true}` {
		t.Errorf("reply %s", reply)
	}
	if usage.TotalTokens != 15 {
		t.Errorf("usage %+v", usage)
	}
	r := s.recorded()[0]
	if r.body["model"] != "other-model" {
		t.Errorf("model %v", r.body["model"])
	}
	f := responseFormat(r)
	js, _ := f["json_schema"].(map[string]any)
	if f["type"] != "json_schema" || js["name"] != "clarify" || js["strict"] != true {
		t.Errorf("response_format %v", f)
	}
	got := messages(r)
	want := [][2]string{{"system", "Decide."}, {"user", "first"}, {"assistant", `{"ready":false}`}, {"user", "again"}}
	if len(got) != len(want) {
		t.Fatalf("messages %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("message %d: %v, want %v", i, got[i], want[i])
		}
	}
	if !strings.Contains(log.String(), `"step":"clarify"`) {
		t.Errorf("prompt log: %s", log.String())
	}
}

func TestAskFallsBackToJSONMode(t *testing.T) {
	s := newServer(t, fail(400, "response_format json_schema is not supported"), ok(`{"ready":false}`))
	e := NewExecutor(testConfig(s))
	reply, usage, err := e.Ask(testCtx(t), askRequest())
	if err != nil || string(reply) != `{"ready":false}` {
		t.Fatalf("reply %s, %v", reply, err)
	}
	if usage.TotalTokens != 15 {
		t.Errorf("usage %+v", usage)
	}
	rs := s.recorded()
	if len(rs) != 2 || responseFormat(rs[1])["type"] != "json_object" {
		t.Fatalf("second request: %v", rs)
	}
	if sys := messages(rs[1])[0]; sys[0] != "system" || !strings.Contains(sys[1], `"additionalProperties":false`) {
		t.Errorf("JSON mode system message: %v", sys)
	}
}

func TestAskErrors(t *testing.T) {
	s := newServer(t, ok("I cannot decide."))
	e := NewExecutor(testConfig(s))
	_, _, err := e.Ask(testCtx(t), askRequest())
	var re *ReplyError
	if !errors.As(err, &re) || re.Reply != "I cannot decide." || !strings.Contains(err.Error(), "clarify") {
		t.Errorf("prose reply: %v", err)
	}

	s = newServer(t, fail(401, "bad key"))
	_, _, err = NewExecutor(testConfig(s)).Ask(testCtx(t), askRequest())
	if err == nil || !strings.Contains(err.Error(), "refused the API key") {
		t.Errorf("401: %v", err)
	}

	_, _, err = NewExecutor(Config{}).Ask(testCtx(t), askRequest())
	if err == nil || !strings.Contains(err.Error(), EnvAPIKey) {
		t.Errorf("no server: %v", err)
	}
}

// TestAskUnknownModelAdvice: the advice of an unknown model's error says
// where the caller's user names the model; without ModelWhere it is the
// steps' advice.
func TestAskUnknownModelAdvice(t *testing.T) {
	for _, c := range []struct {
		where, want, not string
	}{
		{"", "name a model the server offers in the step's model argument or in FLOWCTL_MODEL", "--model"},
		{"with --model or in FLOWCTL_MODEL", "name a model the server offers with --model or in FLOWCTL_MODEL", "step's model argument"},
	} {
		s := newServer(t, failCode(404, "model_not_found", "The model `nope` does not exist"))
		req := askRequest()
		req.Model, req.ModelWhere = "nope", c.where
		_, _, err := NewExecutor(testConfig(s)).Ask(testCtx(t), req)
		if err == nil || !strings.Contains(err.Error(), `the model "nope" was not found`) ||
			!strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.not) {
			t.Errorf("ModelWhere %q: %v", c.where, err)
		}
	}
}
