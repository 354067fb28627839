package llm

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	openai "github.com/sashabaranov/go-openai"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// maxReasks is how many times the model is asked again after a reply that
// does not fit the declared outputs (docs/design.md, "Blocks").
const maxReasks = 2

// How structured output is asked for. An Executor starts with the JSON
// schema and falls back, for the rest of its life, when the server
// rejects it.
const (
	formatSchema int32 = iota // response_format json_schema
	formatJSON                // response_format json_object; the schema in the system message
	formatText                // no response_format; the schema in the system message
)

// Executor runs llm blocks: the llm built-in and user blocks with
// runtime = "llm". It is safe for concurrent use; all its calls share its
// concurrency and rate limits, so a program should have one.
type Executor struct {
	cfg    Config
	t      *transport // nil: no server configured
	log    *promptLog // nil: no prompt log
	format atomic.Int32
	// providers are the transports to the providers steps name, by
	// provider name and identity; their limits are the process's
	// (sharedLimits).
	providers sync.Map
}

var _ blocks.Executor = (*Executor)(nil)

// NewExecutor returns an Executor for cfg; zero fields take their
// defaults. Without an API key or base URL it still returns an Executor,
// whose calls fail saying what to set.
func NewExecutor(cfg Config) *Executor {
	cfg = cfg.withDefaults()
	e := &Executor{cfg: cfg, log: newPromptLog(cfg)}
	if cfg.configured() {
		e.t = newTransport(cfg)
		e.t.log = e.log
	}
	return e
}

// params are what one call asks, from the built-in's inputs or a user
// block's definition.
type params struct {
	prompt, system string // "": none
	// conversation are the messages the step gives (messages), sent
	// between the system message and the prompt.
	conversation []openai.ChatCompletionMessage
	model        string
	sampling
}

// Execute runs one call. Without declared output fields it returns the
// reply as text; with some, it asks for a JSON object of them, re-asking
// up to twice when the reply does not fit. The Result carries the tokens
// of every round trip, also when it fails.
func (e *Executor) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	if isEmbed(call) {
		return e.executeEmbed(ctx, call)
	}
	if _, err := e.transportFor(call); err != nil {
		return nil, err
	}
	p, err := e.params(call)
	if err != nil {
		return nil, err
	}
	usage := &blocks.Usage{}
	tl := newToolLoop(call)
	fields := declaredFields(call.Outputs)
	if len(fields) == 0 {
		var turns []openai.ChatCompletionMessage
		text, _, err := e.converse(ctx, tl, &turns, func(turns []openai.ChatCompletionMessage) (openai.ChatCompletionMessage, bool, error) {
			r := &request{model: p.model, sampling: p.sampling, messages: p.messages("", turns)}
			tl.offer(r)
			return e.send(ctx, call, r, usage)
		})
		if err != nil {
			return &blocks.Result{Usage: usage}, err
		}
		return &blocks.Result{Outputs: map[string]cty.Value{
			"text":  cty.StringVal(text),
			"usage": usageValue(usage),
		}, Usage: usage}, nil
	}
	return e.structured(ctx, call, p, fields, tl, usage)
}

// CacheKey adds the model to a result's cache key: a step that names no
// model uses FLOWCTL_MODEL, which the block's definition and inputs do not
// show. Package runtime looks for this method.
func (e *Executor) CacheKey(call *blocks.Call) (string, error) {
	key := "model=" + e.model(call)
	if isEmbed(call) {
		key = "embeddings model=" + e.embedModel(call)
	}
	if call.Provider != nil {
		key += " provider=" + call.Provider.BaseURL
	}
	return key, nil
}

// structured asks for the declared fields as a JSON object and parses the
// reply, re-asking with the problem when it does not fit.
func (e *Executor) structured(ctx context.Context, call *blocks.Call, p params, fields []*lang.Field, tl *toolLoop, usage *blocks.Usage) (*blocks.Result, error) {
	sch := outputSchema(fields)
	name := schemaName(call.Block.Name)
	var turns []openai.ChatCompletionMessage
	var problem string
	for try := 0; try <= maxReasks; try++ {
		reply, cut, err := e.converse(ctx, tl, &turns, func(turns []openai.ChatCompletionMessage) (openai.ChatCompletionMessage, bool, error) {
			return e.askStructured(ctx, call, p, sch, name, turns, tl, usage)
		})
		if err != nil {
			return &blocks.Result{Usage: usage}, err
		}
		out, err := parseReply(reply, fields)
		if err == nil {
			out["text"] = cty.StringVal(reply)
			out["usage"] = usageValue(usage)
			return &blocks.Result{Outputs: out, Usage: usage}, nil
		}
		problem = err.Error()
		if cut {
			problem += " (the reply was cut off at the max_tokens limit)"
		}
		turns = append(turns,
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: reply},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: reaskText(problem)})
	}
	return &blocks.Result{Usage: usage}, fmt.Errorf(
		"the model's reply did not match the declared outputs after %d tries (the last problem: %s); make the prompt say more clearly what each field holds, or use a more capable model",
		maxReasks+1, problem)
}

// reaskText is the message that asks the model to fix its reply.
func reaskText(problem string) string {
	return "Your reply could not be used: " + problem + ". Reply with only the corrected JSON object, with no other text."
}

// askStructured sends one turn of a structured call in the executor's
// current format, falling back to a simpler one when the server rejects
// it.
func (e *Executor) askStructured(ctx context.Context, call *blocks.Call, p params, sch schema, name string,
	turns []openai.ChatCompletionMessage, tl *toolLoop, usage *blocks.Usage) (openai.ChatCompletionMessage, bool, error) {
	for {
		mode := e.format.Load()
		r := &request{model: p.model, sampling: p.sampling}
		switch mode {
		case formatSchema:
			r.messages = p.messages("", turns)
			r.format = &openai.ChatCompletionResponseFormat{
				Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
				JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
					Name: name, Schema: sch.JSON, Strict: sch.Strict,
				},
			}
		case formatJSON:
			r.messages = p.messages(jsonInstruction(sch), turns)
			r.format = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
		default:
			r.messages = p.messages(jsonInstruction(sch), turns)
		}
		tl.offer(r)
		msg, cut, err := e.send(ctx, call, r, usage)
		if err != nil && mode < formatText && formatRejected(err) {
			e.format.CompareAndSwap(mode, mode+1)
			continue
		}
		return msg, cut, err
	}
}

// jsonInstruction asks for the object when the server cannot be given the
// schema in response_format.
func jsonInstruction(sch schema) string {
	return "Reply with only a JSON object, with no other text, that matches this JSON schema:\n" + string(sch.JSON)
}

// send makes one round trip (with the transport's retries) and adds its
// tokens to usage. It returns the model's message and whether it was cut
// off at max_tokens.
func (e *Executor) send(ctx context.Context, call *blocks.Call, r *request, usage *blocks.Usage) (openai.ChatCompletionMessage, bool, error) {
	var none openai.ChatCompletionMessage
	t, err := e.transportFor(call)
	if err != nil {
		return none, false, err
	}
	resp, err := t.complete(ctx, call, r)
	if err != nil {
		return none, false, err
	}
	u := usageOf(resp)
	usage.PromptTokens += u.PromptTokens
	usage.CompletionTokens += u.CompletionTokens
	usage.TotalTokens += u.TotalTokens
	if len(resp.Choices) == 0 {
		return none, false, fmt.Errorf("the model server at %s returned no reply (no choices)", t.baseURL)
	}
	c := resp.Choices[0]
	if c.Message.Refusal != "" {
		return none, false, fmt.Errorf("the model refused to answer: %s", c.Message.Refusal)
	}
	return c.Message, c.FinishReason == openai.FinishReasonLength, nil
}

// messages builds the conversation: the system message (with extra
// instructions appended), the step's messages as given, the prompt as
// the last user message, then any re-ask turns.
func (p params) messages(extra string, turns []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	system := p.system
	if extra != "" {
		if system != "" {
			system += "\n\n"
		}
		system += extra
	}
	var msgs []openai.ChatCompletionMessage
	if system != "" {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: system})
	}
	msgs = append(msgs, p.conversation...)
	if p.prompt != "" || len(p.conversation) == 0 {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: p.prompt})
	}
	return append(msgs, turns...)
}

// params reads what a call asks: the built-in's inputs, or a user block's
// templates evaluated over its inputs.
func (e *Executor) params(call *blocks.Call) (params, error) {
	p := params{model: e.model(call)}
	if call.Block.Builtin() {
		prompt, hasPrompt := stringInput(call, "prompt")
		p.prompt = prompt
		p.system, _ = stringInput(call, "system")
		p.temperature = floatInput(call, "temperature")
		p.topP = floatInput(call, "top_p")
		if v := call.Inputs["seed"]; known(v) {
			n, _ := v.AsBigFloat().Int64()
			p.seed = &n
		}
		if v := call.Inputs["stop"]; known(v) {
			for _, s := range v.AsValueSlice() {
				if !s.IsNull() {
					p.stop = append(p.stop, s.AsString())
				}
			}
		}
		if v := call.Inputs["max_tokens"]; known(v) {
			n, _ := v.AsBigFloat().Int64()
			p.maxTokens = int(n)
		}
		if v := call.Inputs["messages"]; known(v) {
			for it := v.ElementIterator(); it.Next(); {
				_, m := it.Element()
				msg := openai.ChatCompletionMessage{Role: m.GetAttr("role").AsString(), Content: m.GetAttr("content").AsString()}
				if id := m.GetAttr("tool_call_id"); !id.IsNull() {
					msg.ToolCallID = id.AsString()
				}
				p.conversation = append(p.conversation, msg)
			}
		}
		if !hasPrompt && len(p.conversation) == 0 {
			return p, fmt.Errorf("the step gives the model nothing to answer: set its prompt, or messages with at least one message")
		}
		return p, nil
	}
	def := call.Block.Def
	if def == nil || def.Prompt == nil {
		return p, fmt.Errorf("block %q has no prompt", call.Block.Name)
	}
	var err error
	if p.prompt, err = evalTemplate(def.Prompt, call, "prompt"); err != nil {
		return p, err
	}
	if def.System != nil {
		if p.system, err = evalTemplate(def.System, call, "system"); err != nil {
			return p, err
		}
	}
	p.temperature = def.Temperature
	p.maxTokens = def.MaxTokens
	p.topP, p.seed, p.stop = def.TopP, def.Seed, def.Stop
	return p, nil
}

// model is the model a call uses: the step's or block's, else the
// configured default.
func (e *Executor) model(call *blocks.Call) string {
	if call.Block.Builtin() {
		if m, ok := stringInput(call, "model"); ok && m != "" {
			return m
		}
	} else if call.Block.Def != nil && call.Block.Def.Model != "" {
		return call.Block.Def.Model
	}
	return e.cfg.Model
}

// floatInput is a number input of the built-in; nil when null.
func floatInput(call *blocks.Call, name string) *float64 {
	v := call.Inputs[name]
	if !known(v) {
		return nil
	}
	f, _ := v.AsBigFloat().Float64()
	return &f
}

func known(v cty.Value) bool { return v != cty.NilVal && v.IsKnown() && !v.IsNull() }

func stringInput(call *blocks.Call, name string) (string, bool) {
	v := call.Inputs[name]
	if !known(v) {
		return "", false
	}
	v, err := convert.Convert(v, cty.String)
	if err != nil {
		return "", false
	}
	return v.AsString(), true
}

// evalTemplate evaluates a user block's prompt or system template with the
// call's inputs as input.*.
func evalTemplate(expr hcl.Expression, call *blocks.Call, what string) (string, error) {
	inputs := cty.EmptyObjectVal
	if len(call.Inputs) > 0 {
		inputs = cty.ObjectVal(call.Inputs)
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{lang.RootInput: inputs},
		Functions: lang.FunctionsReporting(filepath.Dir(expr.Range().Filename), call.Touch),
	}
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return "", fmt.Errorf("the %s template of block %q: %s", what, call.Block.Name, lang.ErrorSentence(diags, true))
	}
	v, _ = v.UnmarkDeep()
	v, err := convert.Convert(v, cty.String)
	switch {
	case err != nil:
		return "", fmt.Errorf("the %s template of block %q must produce a string: %s", what, call.Block.Name, lang.FormatConvertError(err))
	case !v.IsKnown() || v.IsNull():
		return "", fmt.Errorf("the %s template of block %q produced no text", what, call.Block.Name)
	}
	return v.AsString(), nil
}

// declaredFields are the output fields the model must return: the step's
// (or block's) outputs except text and usage, which every llm block has.
func declaredFields(outputs []*lang.Field) []*lang.Field {
	var out []*lang.Field
	for _, f := range outputs {
		if f.Name != "text" && f.Name != "usage" {
			out = append(out, f)
		}
	}
	return out
}

func usageValue(u *blocks.Usage) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"prompt_tokens":     cty.NumberIntVal(int64(u.PromptTokens)),
		"completion_tokens": cty.NumberIntVal(int64(u.CompletionTokens)),
		"total_tokens":      cty.NumberIntVal(int64(u.TotalTokens)),
	})
}
