package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	openai "github.com/sashabaranov/go-openai"
)

// Streaming (docs/llm.md, "Streaming"): a request of a step that streams
// is sent with "stream": true and asks for the usage in the last chunk;
// the reply's text is relayed as it comes (blocks.Call.Delta), and the
// chunks are assembled into the same reply a request without streaming
// gets, tool calls included, from which the outputs are parsed as
// before. A server that answers a streaming request with a whole JSON
// reply is read as one chunk; one that rejects streaming is asked again
// without it, and its transport does not stream again.

// streams reports whether a call's requests stream: the step's stream
// input, else its provider's stream setting, else (the environment's
// provider) FLOWCTL_LLM_STREAM, else yes.
func (e *Executor) streams(call *blocks.Call) bool {
	if call == nil {
		return false
	}
	if v, ok := call.Inputs["stream"]; ok && known(v) {
		return v.True()
	}
	if call.Provider != nil {
		return call.Provider.Stream == nil || *call.Provider.Stream
	}
	return !e.cfg.NoStream
}

// streamReply is what one streamed round trip got: the reply, as a
// non-streaming request gets it, and when its first chunk came.
type streamReply struct {
	resp  openai.ChatCompletionResponse
	first time.Time // zero: no chunk
}

// assembler puts the chunks of a streamed reply together.
type assembler struct {
	resp  openai.ChatCompletionResponse
	text  strings.Builder
	refus strings.Builder
	tools []openai.ToolCall
	first time.Time
}

// add takes a chunk and returns the text it adds to the reply.
func (a *assembler) add(c openai.ChatCompletionStreamResponse) string {
	if a.first.IsZero() {
		a.first = time.Now()
	}
	if c.ID != "" {
		a.resp.ID = c.ID
	}
	if c.Model != "" {
		a.resp.Model = c.Model
	}
	if c.Created != 0 {
		a.resp.Created = c.Created
	}
	if c.Usage != nil {
		a.resp.Usage = *c.Usage
	}
	var text string
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // n = 1: one choice
		}
		d := ch.Delta
		text += d.Content
		a.text.WriteString(d.Content)
		a.refus.WriteString(d.Refusal)
		if ch.FinishReason != "" {
			a.resp.Choices = ensureChoice(a.resp.Choices)
			a.resp.Choices[0].FinishReason = ch.FinishReason
		}
		for _, tc := range d.ToolCalls {
			i := len(a.tools)
			if tc.Index != nil {
				i = *tc.Index
			}
			for len(a.tools) <= i {
				a.tools = append(a.tools, openai.ToolCall{Type: openai.ToolTypeFunction})
			}
			t := &a.tools[i]
			if tc.ID != "" {
				t.ID = tc.ID
			}
			if tc.Type != "" {
				t.Type = tc.Type
			}
			if tc.Function.Name != "" {
				t.Function.Name += tc.Function.Name
			}
			t.Function.Arguments += tc.Function.Arguments
		}
	}
	return text
}

// reply is the assembled reply.
func (a *assembler) reply() streamReply {
	resp := a.resp
	resp.Object = "chat.completion"
	resp.Choices = ensureChoice(resp.Choices)
	m := &resp.Choices[0].Message
	m.Role = openai.ChatMessageRoleAssistant
	m.Content = a.text.String()
	m.Refusal = a.refus.String()
	m.ToolCalls = a.tools
	if a.text.Len() == 0 && a.refus.Len() == 0 && len(a.tools) == 0 && a.first.IsZero() {
		resp.Choices = nil // no chunk: no reply, as a server with no choices
	}
	return streamReply{resp: resp, first: a.first}
}

func ensureChoice(cs []openai.ChatCompletionChoice) []openai.ChatCompletionChoice {
	if len(cs) == 0 {
		return []openai.ChatCompletionChoice{{Index: 0}}
	}
	return cs
}

// relay is what a call relays of its streamed replies: to fn, and
// whether some text went out already.
type relay struct {
	fn      deltaFunc
	relayed bool
}

type relayKey struct{}

// withRelay returns ctx whose round trips relay their text to fn (nil:
// none).
func withRelay(ctx context.Context, fn func(string, bool)) context.Context {
	if fn == nil {
		return ctx
	}
	return context.WithValue(ctx, relayKey{}, &relay{fn: fn})
}

func relayOf(ctx context.Context) (deltaFunc, *bool) {
	if r, ok := ctx.Value(relayKey{}).(*relay); ok {
		return r.fn, &r.relayed
	}
	var none bool
	return nil, &none
}

// deltaFunc receives the text of a streamed reply as it comes; reset is
// true on the first text of a round trip that follows one whose text was
// already relayed (a try after a broken stream, a re-ask): what came
// before is not part of the reply.
type deltaFunc func(text string, reset bool)

// roundTrip sends req once, streaming when r streams and the transport
// still does, and returns the reply, the response's header (for
// Retry-After) and when its first chunk came.
func (t *transport) roundTrip(ctx context.Context, req openai.ChatCompletionRequest, r *request, delta deltaFunc, relayed *bool) (streamReply, http.Header, error) {
	if !r.stream || t.noStream.Load() {
		resp, err := t.client.CreateChatCompletion(ctx, req)
		if err == nil && delta != nil && len(resp.Choices) > 0 && resp.Choices[0].Message.Content != "" {
			// A server that does not stream relays the reply at once.
			delta(resp.Choices[0].Message.Content, *relayed)
			*relayed = true
		}
		return streamReply{resp: resp}, resp.Header(), err
	}
	h := &headerHolder{}
	sreq := req
	sreq.Stream = true
	sreq.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	st, err := t.client.CreateChatCompletionStream(context.WithValue(ctx, headerKey{}, h), sreq)
	if err != nil {
		if streamRejected(err) {
			t.noStream.Store(true)
			return t.roundTrip(ctx, req, r, delta, relayed)
		}
		return streamReply{}, h.get(), err
	}
	defer st.Close()
	var a assembler
	reset := *relayed
	for {
		c, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return streamReply{}, h.get(), err
		}
		if text := a.add(c); text != "" && delta != nil {
			delta(text, reset)
			reset = false
			*relayed = true
		}
	}
	return a.reply(), h.get(), nil
}

// streamRejected reports whether a server refused a request for asking
// to stream (or for stream_options): it is asked again without.
func streamRejected(err error) bool {
	var ae *openai.APIError
	if !errors.As(err, &ae) {
		var re *openai.RequestError
		if !errors.As(err, &re) {
			return false
		}
		return (re.HTTPStatusCode == http.StatusBadRequest || re.HTTPStatusCode == http.StatusUnprocessableEntity) &&
			strings.Contains(strings.ToLower(string(re.Body)), "stream")
	}
	return (ae.HTTPStatusCode == http.StatusBadRequest || ae.HTTPStatusCode == http.StatusUnprocessableEntity) &&
		strings.Contains(strings.ToLower(ae.Message), "stream")
}

// headerHolder keeps the header of a streamed request's response, which
// go-openai does not return with an error (Retry-After of a 429).
type headerHolder struct {
	mu sync.Mutex
	h  http.Header
}

type headerKey struct{}

func (h *headerHolder) get() http.Header {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.h
}

// streamResponse keeps a streamed request's response header for its
// holder, and turns a whole JSON reply to a streaming request (a server
// that ignores "stream") into the one chunk it amounts to.
func streamResponse(req *http.Request, resp *http.Response) *http.Response {
	h, ok := req.Context().Value(headerKey{}).(*headerHolder)
	if !ok {
		return resp
	}
	h.mu.Lock()
	h.h = resp.Header.Clone()
	h.mu.Unlock()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return resp
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp
	}
	var whole openai.ChatCompletionResponse
	if json.Unmarshal(body, &whole) != nil {
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp
	}
	chunk := openai.ChatCompletionStreamResponse{ID: whole.ID, Object: "chat.completion.chunk", Created: whole.Created, Model: whole.Model, Usage: &whole.Usage}
	for _, c := range whole.Choices {
		d := openai.ChatCompletionStreamChoiceDelta{Role: c.Message.Role, Content: c.Message.Content, Refusal: c.Message.Refusal}
		for i, tc := range c.Message.ToolCalls {
			tc.Index = &i
			d.ToolCalls = append(d.ToolCalls, tc)
		}
		chunk.Choices = append(chunk.Choices, openai.ChatCompletionStreamChoice{Index: c.Index, Delta: d, FinishReason: c.FinishReason})
	}
	b, _ := json.Marshal(chunk)
	sse := "data: " + string(b) + "\n\ndata: [DONE]\n\n"
	resp.Body = io.NopCloser(strings.NewReader(sse))
	resp.ContentLength = int64(len(sse))
	resp.Header.Set("Content-Type", "text/event-stream")
	return resp
}
