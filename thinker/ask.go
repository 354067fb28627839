package thinker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/hashicorp/hcl/v2"
)

// request is one LLM request of a stage.
type request struct {
	schema   stageSchema
	system   string
	messages []llm.Message
	try      int
	block    string
}

// meter counts the requests of a run and keeps it within its budgets:
// Options.MaxCalls requests and Options.MaxTokens tokens.
type meter struct {
	usage Usage
	// promptBytes are the bytes of the prompts whose tokens the provider
	// reported, to estimate the next prompt's tokens in the provider's
	// own measure.
	promptBytes, measuredTokens int
	// maxCompletion is the longest reply of each stage so far, in tokens.
	maxCompletion map[string]int
}

func (m *meter) stage(name string) *StageUsage {
	for i := range m.usage.Stages {
		if m.usage.Stages[i].Stage == name {
			return &m.usage.Stages[i]
		}
	}
	m.usage.Stages = append(m.usage.Stages, StageUsage{Stage: name})
	return &m.usage.Stages[len(m.usage.Stages)-1]
}

// bytesPerToken is what a prompt's size is divided by to estimate its
// tokens before the provider has reported any.
const bytesPerToken = 4

// estimate is about how many tokens a request will use: its prompt by the
// ratio of bytes to tokens the provider's replies have shown (4 bytes a
// token before the first), and a reply as long as the stage's longest so
// far (else the longest of any stage, else a quarter of the prompt).
func (m *meter) estimate(stage string, promptBytes int) int {
	prompt := promptBytes / bytesPerToken
	if m.measuredTokens > 0 && m.promptBytes > 0 {
		prompt = promptBytes * m.measuredTokens / m.promptBytes
	}
	completion, ok := m.maxCompletion[stage]
	if !ok {
		for _, c := range m.maxCompletion {
			completion = max(completion, c)
		}
		if len(m.maxCompletion) == 0 {
			completion = prompt / 4
		}
	}
	return prompt + completion
}

func (m *meter) record(stage string, promptBytes int, u blocks.Usage) {
	s := m.stage(stage)
	s.PromptTokens += u.PromptTokens
	s.CompletionTokens += u.CompletionTokens
	m.usage.PromptTokens += u.PromptTokens
	m.usage.CompletionTokens += u.CompletionTokens
	if u.PromptTokens > 0 {
		m.promptBytes += promptBytes
		m.measuredTokens += u.PromptTokens
	}
	if m.maxCompletion == nil {
		m.maxCompletion = map[string]int{}
	}
	m.maxCompletion[stage] = max(m.maxCompletion[stage], u.CompletionTokens)
}

// summary says which stages sent the requests: "decompose 2,
// create_block 30, repair 8".
func (m *meter) summary() string {
	var parts []string
	for _, s := range m.usage.Stages {
		parts = append(parts, fmt.Sprintf("%s %d", s.Stage, s.Calls))
	}
	if len(parts) == 0 {
		return "none yet"
	}
	return strings.Join(parts, ", ")
}

// promptSize is the bytes a request sends: its system message, its
// messages and its schema.
func promptSize(q request) int {
	n := len(q.system) + len(q.schema.Send)
	for _, m := range q.messages {
		n += len(m.Content)
	}
	return n
}

// errCallBudget is the error of a request past Options.MaxCalls.
var errCallBudget = errors.New("model call budget used")

// ask sends a request and decodes its reply into out. It returns the
// reply's JSON for the conversation, and the fields of the reply its
// stage does not have (left out of out), for the stage to report to the
// model. A request past a budget, a failed request, a reply that is no
// JSON object, and one that lacks the stage's shape end the stage.
func (r *run) ask(ctx context.Context, q request, out any) (json.RawMessage, []string, error) {
	stage := q.schema.Name
	m := &r.meter
	if max := r.maxCalls(); m.usage.Calls >= max {
		return nil, nil, stageErr(stage, errCallBudget, "the run has used its %d model calls (%s); allow more with --max-calls", max, m.summary())
	}
	size := promptSize(q)
	if budget := r.opts.MaxTokens; budget > 0 {
		used := m.usage.PromptTokens + m.usage.CompletionTokens
		if next := m.estimate(stage, size); used+next > budget {
			what := stage
			if q.block != "" {
				what += " " + q.block
			}
			return nil, nil, stageErr(stage, ErrBudget,
				"stopped before %s: the request would need about %d tokens, and %d of the budget of %d are used (requests so far: %s); allow more with --max-tokens or %s",
				what, next, used, budget, m.summary(), EnvMaxTokens)
		}
	}
	m.stage(stage).Calls++
	m.usage.Calls++
	r.emit(LLMRequest{
		Time: time.Now(), Stage: stage, Model: r.opts.ModelName, Try: q.try, Block: q.block,
		Messages: len(q.messages) + 1, Strict: q.schema.Strict,
	})
	start := time.Now()
	reply, usage, err := r.opts.Model.Ask(ctx, llm.AskRequest{
		Name: stage, Schema: q.schema.Send, Strict: q.schema.Strict,
		System: q.system, Messages: q.messages, Model: r.opts.ModelName, ModelWhere: modelWhere,
	})
	m.record(stage, size, usage)
	r.res.Usage = m.usage.Total()
	resp := LLMResponse{Time: time.Now(), Stage: stage, Try: q.try, Block: q.block, Duration: time.Since(start), Usage: usage}
	if err != nil {
		resp.Error = err.Error()
		r.emit(resp)
		var re *llm.ReplyError
		if errors.As(err, &re) {
			return nil, nil, stageErr(stage, err, "the model's reply is malformed: it is not a JSON object (%s); the reply began %s", re.Err, excerpt(re.Reply))
		}
		if ctx.Err() != nil {
			return nil, nil, stageErr(stage, err, "cancelled")
		}
		return nil, nil, stageErr(stage, err, "%s", err)
	}
	resp.Reply = reply
	r.emit(resp)
	var v any
	if err := json.Unmarshal(reply, &v); err != nil {
		return nil, nil, stageErr(stage, err, "the model's reply is malformed: %s", err)
	}
	var shape map[string]any
	c := newConformer(q.schema.Send, q.schema.Shape)
	if json.Unmarshal(q.schema.Shape, &shape) == nil {
		v = c.conform(v, shape, "reply")
		if len(c.notes) > 0 {
			r.emit(ReplyAdjusted{Time: time.Now(), Stage: stage, Try: q.try, Block: q.block, Notes: c.notes})
			if reply, err = json.Marshal(v); err != nil {
				return nil, nil, stageErr(stage, err, "the model's reply is malformed: %s", err)
			}
		}
	}
	if problems := llm.CheckShape(v, q.schema.Shape); len(problems) > 0 {
		return nil, nil, stageErr(stage, nil, "the model's reply is malformed: it does not have the shape of a %s reply: %s",
			stage, strings.Join(problems, "; "))
	}
	if len(c.quiet) > 0 {
		for _, unset := range c.quiet {
			unset()
		}
		if reply, err = json.Marshal(v); err != nil {
			return nil, nil, stageErr(stage, err, "the model's reply is malformed: %s", err)
		}
	}
	if err := json.Unmarshal(reply, out); err != nil {
		return nil, nil, stageErr(stage, err, "the model's reply is malformed: %s", err)
	}
	return reply, c.unknown, nil
}

// unknownFields is the problem of a reply with fields its stage does not
// have, for the model: they were left out.
func unknownFields(unknown []string) string {
	return "the reply has fields this stage does not take, which were left out: " + strings.Join(unknown, "; ") +
		"; say what they meant with the fields there are, or leave them out"
}

// unknownDiags are the diagnostics of a reply's unknown fields.
func unknownDiags(unknown []string) hcl.Diagnostics {
	if len(unknown) == 0 {
		return nil
	}
	return problem("Unknown fields", "%s.", capitalizeFirst(unknownFields(unknown)))
}

// emitUsage reports what the run's requests used: before its last event.
func (r *run) emitUsage() {
	u := r.meter.usage
	u.Stages = append([]StageUsage(nil), u.Stages...)
	r.emit(UsageReported{Time: time.Now(), Usage: u})
}

func (r *run) maxCalls() int {
	if r.opts.MaxCalls > 0 {
		return r.opts.MaxCalls
	}
	return DefaultMaxCalls
}

// excerpt quotes the start of a reply for an error message.
func excerpt(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "empty"
	}
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

func user(content string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: content} }

func assistant(reply json.RawMessage) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: string(reply)}
}
