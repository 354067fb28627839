package thinker

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
)

// fakeModel answers each stage from a queue of scripted replies and
// records the requests. A reply that is not JSON is returned as the
// llm package returns prose: a *llm.ReplyError.
type fakeModel struct {
	// realistic: a request's usage is its size in tokens of 4 bytes
	// (system, messages and schema; the reply), not 10 and 5.
	realistic bool
	mu        sync.Mutex
	replies   map[string][]string
	requests  []llm.AskRequest
}

func newFakeModel(replies map[string][]string) *fakeModel {
	return &fakeModel{replies: replies}
}

func (m *fakeModel) Ask(_ context.Context, req llm.AskRequest) ([]byte, blocks.Usage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, req)
	usage := blocks.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}
	q := m.replies[req.Name]
	if len(q) == 0 {
		return nil, usage, fmt.Errorf("no reply scripted for %s", req.Name)
	}
	reply := q[0]
	m.replies[req.Name] = q[1:]
	if m.realistic {
		n := len(req.System) + len(req.Schema)
		for _, msg := range req.Messages {
			n += len(msg.Content)
		}
		usage = blocks.Usage{PromptTokens: n / 4, CompletionTokens: len(reply) / 4}
		usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	}
	if !json.Valid([]byte(reply)) {
		return nil, usage, &llm.ReplyError{Name: req.Name, Reply: reply, Err: fmt.Errorf("the reply has no JSON object")}
	}
	return []byte(reply), usage, nil
}

// requestsFor returns the recorded requests of a stage.
func (m *fakeModel) requestsFor(stage string) []llm.AskRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []llm.AskRequest
	for _, r := range m.requests {
		if r.Name == stage {
			out = append(out, r)
		}
	}
	return out
}

// lastMessage is the last message of a request.
func lastMessage(r llm.AskRequest) string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[len(r.Messages)-1].Content
}

// eventTypes names the events in order, as their JSON types would.
func eventTypes(events []Event) []string {
	var out []string
	for _, e := range events {
		name := fmt.Sprintf("%T", e)
		name = strings.TrimPrefix(name, "thinkevent.")
		if s, ok := e.(StageStarted); ok {
			name += ":" + s.Stage
		}
		out = append(out, name)
	}
	return out
}
