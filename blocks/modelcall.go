package blocks

// ModelCall is one round trip of a step with a model server, as
// --log-prompts writes it and the run's call traces keep it (docs/llm.md,
// "Call traces"): what was sent, what came back, tokens, cost and
// timings. Every string in it has gone through the call's redactor.
type ModelCall struct {
	Time     string `json:"time"` // RFC 3339, UTC, when the request was sent
	Step     string `json:"step"` // the step instance, step or step[key]
	Attempt  int    `json:"attempt,omitempty"`
	Try      int    `json:"try,omitempty"`      // the round trip of the request, from 1: above 1 after the model server's errors
	Provider string `json:"provider,omitempty"` // the provider block the step names; absent: the environment's
	Model    string `json:"model"`
	// ResponseModel is the model the server says answered.
	ResponseModel string          `json:"response_model,omitempty"`
	Request       ModelRequest    `json:"request"`
	Response      *string         `json:"response"`
	ToolCalls     []ModelToolCall `json:"tool_calls,omitempty"` // in the response
	FinishReason  string          `json:"finish_reason,omitempty"`
	DurationMS    int64           `json:"duration_ms"`
	// FirstTokenMS is the time to the first streamed chunk; absent when
	// the reply was not streamed.
	FirstTokenMS *int64  `json:"first_token_ms,omitempty"`
	Status       int     `json:"status,omitempty"` // the HTTP status; absent: no reply (a network error)
	Usage        *Usage  `json:"usage"`
	Error        *string `json:"error"`
}

// ModelRequest is what a ModelCall sent.
type ModelRequest struct {
	Messages       []ModelMessage `json:"messages"`
	ResponseFormat any            `json:"response_format"`
	Temperature    *float64       `json:"temperature"`
	TopP           *float64       `json:"top_p,omitempty"`
	Seed           *int64         `json:"seed,omitempty"`
	Stop           []string       `json:"stop,omitempty"`
	MaxTokens      *int           `json:"max_tokens"`
	Stream         bool           `json:"stream,omitempty"`
	Tools          []string       `json:"tools,omitempty"` // their names
}

// ModelMessage is a message of a ModelRequest.
type ModelMessage struct {
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolCalls  []ModelToolCall `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// ModelToolCall is a tool call a model made.
type ModelToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}
