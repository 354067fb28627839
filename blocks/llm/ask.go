package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	openai "github.com/sashabaranov/go-openai"
)

// AskRequest is one structured request made outside a step, such as a
// stage of the thinker: a conversation whose reply must be a JSON object
// matching Schema.
type AskRequest struct {
	// Name is sent as response_format.json_schema.name; it must match
	// ^[a-zA-Z0-9_-]{1,64}$. It also names the request in the prompt log.
	Name string
	// Schema is the JSON schema of the reply object.
	Schema json.RawMessage
	// Strict asks the server to enforce the schema exactly (OpenAI's strict
	// structured outputs): every object closed, every property required.
	Strict bool
	// System is the system message; empty: none.
	System string
	// Messages are the turns after the system message, oldest first: user
	// messages, and the assistant's earlier replies when a request is
	// asked again with a problem.
	Messages []Message
	// Model overrides the configured model; empty: the configured one.
	Model string
	// ModelWhere says where the caller's user names the model, completing
	// the advice of an unknown model's error: "name a model the server
	// offers " + ModelWhere, such as "with --model or in FLOWCTL_MODEL".
	// Empty: as for steps ("in the step's model argument or in
	// FLOWCTL_MODEL").
	ModelWhere string
	// Temperature, when set, is sent as the sampling temperature.
	Temperature *float64
}

// Message is one turn of an AskRequest's conversation.
type Message struct {
	Role    string // RoleUser or RoleAssistant
	Content string
}

// The roles of Message.
const (
	RoleUser      = openai.ChatMessageRoleUser
	RoleAssistant = openai.ChatMessageRoleAssistant
)

// ReplyError is a reply that holds no usable JSON object. Reply is the
// model's text as received.
type ReplyError struct {
	Name  string
	Reply string
	Err   error
}

func (e *ReplyError) Error() string {
	return fmt.Sprintf("the model's reply to %s is not a JSON object: %s", e.Name, e.Err)
}

func (e *ReplyError) Unwrap() error { return e.Err }

// Ask sends a structured request through the Executor's transport, within
// its concurrency and rate limits, with its retries and its prompt log,
// and returns the JSON object of the reply. It asks with response_format
// json_schema first and falls back to JSON mode (then to plain text with
// the schema in the system message) when the server rejects that, as
// steps do. The reply is read leniently (code fences, prose around the
// object, trailing commas); one without a JSON object is a *ReplyError.
// The usage counts every round trip, also on failure.
func (e *Executor) Ask(ctx context.Context, req AskRequest) ([]byte, blocks.Usage, error) {
	var usage blocks.Usage
	if e.t == nil {
		return nil, usage, errNotConfigured
	}
	if len(req.Schema) == 0 || !json.Valid(req.Schema) {
		return nil, usage, fmt.Errorf("the request %s has no valid JSON schema", req.Name)
	}
	name := schemaName(req.Name)
	model := req.Model
	if model == "" {
		model = e.cfg.Model
	}
	// The prompt log names the request by its call's step.
	call := &blocks.Call{Block: &blocks.Block{Name: name}, Step: name}
	turns := make([]openai.ChatCompletionMessage, len(req.Messages))
	for i, m := range req.Messages {
		turns[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	sch := schema{Strict: req.Strict, JSON: req.Schema}
	for {
		mode := e.format.Load()
		r := &request{model: model, modelWhere: req.ModelWhere, sampling: sampling{temperature: req.Temperature}}
		system := req.System
		switch mode {
		case formatSchema:
			r.format = &openai.ChatCompletionResponseFormat{
				Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
				JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
					Name: name, Schema: sch.JSON, Strict: sch.Strict,
				},
			}
		case formatJSON:
			system = joinSystem(system, jsonInstruction(sch))
			r.format = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
		default:
			system = joinSystem(system, jsonInstruction(sch))
		}
		if system != "" {
			r.messages = append(r.messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: system})
		}
		r.messages = append(r.messages, turns...)
		u := &blocks.Usage{}
		msg, cut, err := e.send(ctx, call, r, u)
		text := msg.Content
		usage.PromptTokens += u.PromptTokens
		usage.CompletionTokens += u.CompletionTokens
		usage.TotalTokens += u.TotalTokens
		if err != nil && mode < formatText && formatRejected(err) {
			e.format.CompareAndSwap(mode, mode+1)
			continue
		}
		if err != nil {
			return nil, usage, err
		}
		obj, err := replyObject(text)
		if err != nil {
			if cut {
				err = fmt.Errorf("%w (the reply was cut off at the token limit)", err)
			}
			return nil, usage, &ReplyError{Name: req.Name, Reply: text, Err: err}
		}
		return obj, usage, nil
	}
}

// replyObject finds the JSON object of a reply, as steps' replies are
// read, and returns it as compact JSON.
func replyObject(text string) ([]byte, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("the reply is empty")
	}
	v, err := findObject(text)
	if err != nil {
		return nil, err
	}
	b, err := jsonval.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("the JSON object cannot be read: %s", err)
	}
	return b, nil
}

func joinSystem(system, extra string) string {
	if system == "" {
		return extra
	}
	return system + "\n\n" + extra
}

// FieldsSchema is the JSON schema of an object with one required property
// per field, the schema llm blocks with declared outputs send. Strict is
// false when a field's type (a map, a tuple or any) cannot be said in
// strict mode.
func FieldsSchema(fields []*lang.Field) (schema json.RawMessage, strict bool) {
	s := outputSchema(fields)
	return s.JSON, s.Strict
}
