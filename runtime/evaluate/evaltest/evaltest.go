// Package evaltest is a model server for the tests, examples and
// benchmark of evaluations: an OpenAI-compatible server on loopback whose
// answers are known, so that every score of an eval can be computed
// exactly. It answers at once.
//
//   - A chat completion classifies the ticket in the last user message:
//     "billing" when it mentions a refund, an invoice or a charge, "bug"
//     when it mentions a crash or an error, else "other" — and always
//     "other" for the model "weak". Asked for a JSON object, it gives
//     each string field the label, but a field named reply, which gets
//     Reply; plain, it replies with the label.
//   - A judge's request (its system message starts "You grade") gets
//     grade 5 when the response to grade contains "Thank you", else 2;
//     asked for true or false, true or false.
//   - An embedding is the text's count of each letter a to z (Letters).
package evaltest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	"github.com/flowctl/flowctl/blocks/llm/llmtest"
)

// Reply is what the server gives a field named reply.
const Reply = "Thank you for writing; we are on it."

// Server is the model server.
type Server struct {
	*httptest.Server
	chats, embeddings atomic.Int64
}

// New starts a server; close it with Close.
func New() *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the server's OpenAI base URL (OPENAI_BASE_URL).
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests counts the requests answered: chat completions and
// embeddings.
func (s *Server) Requests() int64 { return s.chats.Load() + s.embeddings.Load() }

// Chats counts the chat completions answered.
func (s *Server) Chats() int64 { return s.chats.Load() }

// Label is the class the server gives a ticket.
func Label(model, text string) string {
	t := strings.ToLower(text)
	switch {
	case model == "weak":
		return "other"
	case strings.Contains(t, "refund") || strings.Contains(t, "invoice") || strings.Contains(t, "charge"):
		return "billing"
	case strings.Contains(t, "crash") || strings.Contains(t, "error"):
		return "bug"
	}
	return "other"
}

// Letters is the embedding of a text: its count of each letter.
func Letters(text string) []float32 {
	v := make([]float32, 26)
	for _, r := range strings.ToLower(text) {
		if r >= 'a' && r <= 'z' {
			v[r-'a']++
		}
	}
	return v
}

type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	ResponseFormat *struct {
		JSONSchema *struct {
			Schema struct {
				Properties map[string]struct {
					Type any `json:"type"`
				} `json:"properties"`
			} `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	switch r.URL.Path {
	case "/v1/embeddings":
		var req struct {
			Input []string `json:"input"`
		}
		if json.Unmarshal(body, &req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		s.embeddings.Add(1)
		data := make([]map[string]any, len(req.Input))
		for i, text := range req.Input {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": Letters(text)}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "letters", "usage": map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)}})
	case "/v1/chat/completions":
		var req chatRequest
		if json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		s.chats.Add(1)
		content := answer(req)
		u := llmtest.Usage{Prompt: 10, Completion: 5}
		if req.Stream {
			st := llmtest.NewStream(w, req.Model)
			st.Chunk(content)
			st.End(u)
			return
		}
		llmtest.Reply(w, req.Model, content, u)
	default:
		http.NotFound(w, r)
	}
}

func answer(req chatRequest) string {
	system, last := "", ""
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = m.Content
		case "user":
			last = m.Content
		}
	}
	if strings.HasPrefix(system, "You grade") {
		response := last
		if i := strings.Index(last, "The response to grade:\n"); i >= 0 {
			response = last[i:]
		}
		good := strings.Contains(response, "Thank you")
		var grade any = 2
		if strings.Contains(last, "true or false") {
			grade = good
		} else if good {
			grade = 5
		}
		b, _ := json.Marshal(map[string]any{"grade": grade, "reason": "graded by the test server"})
		return string(b)
	}
	label := Label(req.Model, last)
	if req.ResponseFormat == nil || req.ResponseFormat.JSONSchema == nil {
		return label
	}
	out := map[string]any{}
	for name := range req.ResponseFormat.JSONSchema.Schema.Properties {
		switch name {
		case "reply":
			out[name] = Reply
		default:
			out[name] = label
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}
