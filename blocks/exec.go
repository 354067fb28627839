package blocks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// Call is one execution of a block: one attempt of one step instance.
type Call struct {
	Block *Block
	// Inputs holds a value for every input of the block, converted to the
	// input's type, defaults applied, with no marks: blocks see real
	// values, secrets included.
	Inputs map[string]cty.Value
	// Outputs are the output fields the step expects (the block's, plus
	// the step's declared ones for llm).
	Outputs []*lang.Field
	// Dir is the flow file's directory; the file block reads relative to
	// it.
	Dir string
	// Log receives lines the block prints (console.log and the like).
	Log func(line string)
	// Touch, when set, is told each local file the block reads, so that
	// watch mode can re-run the step when the file changes.
	Touch func(path string)
	// Step names the step instance, as step or step[key], for logs.
	Step string
	// Attempt is the attempt this call is, from 1; 0 when unknown.
	Attempt int
	// Redact replaces the text of sensitive values in a string; blocks use
	// it for anything they log (prompt logs). Nil means nothing to redact.
	Redact func(string) string
	// Timeout is the attempt's time limit, for a Queued executor, which
	// starts it when the block starts to run; other executors find the
	// limit on their context. Zero means none beyond the context's.
	Timeout time.Duration
	// Tools, for an llm block, are what the model may call; nil: none.
	Tools *Tools
	// Provider, for an llm block, is the server the step names; nil:
	// the environment's.
	Provider *Provider
	// Collection, for a vector_upsert, vector_delete or vector_search
	// block, is the collection the step names, opened in the run's
	// state; nil for other blocks.
	Collection Collection
	// Sensitive names the inputs whose values come from a secret or a
	// sensitive value (Inputs has them unmarked); nil when none does.
	Sensitive map[string]bool
	// Ledger, for an llm block, counts what the run spent on models and
	// holds its budget; nil: no accounting.
	Ledger *Ledger
	// Delta, for an llm block whose model streams, receives the reply's
	// text as it comes; reset is true on the first text of a round trip
	// that replaces text relayed before (a try after a broken stream, a
	// re-ask). Nil: nobody listens.
	Delta func(text string, reset bool)
	// Trace, for an llm block, receives each round trip with the model
	// server, redacted, for the run's call traces; nil: none kept.
	Trace func(ModelCall)
	// Cache keeps parts of a call's result across runs (embed: each
	// text's vector), kept by the state with the step results; nil when
	// the step is not cached (a sensitive input, cache = false, no state).
	Cache PartCache
}

// A PartCounter says, before a call runs (plan), how many parts it would
// do and how many of them its PartCache (call.Cache) already holds:
// embed's texts. ok is false for a call it does not count.
type PartCounter interface {
	CountParts(call *Call) (c PartCount, ok bool, err error)
}

// PartCount is what a PartCounter counts: of Parts, the cache holds
// Cached, and New (each distinct one once) would be sent.
type PartCount struct{ Parts, Cached, New int }

// PartCache keeps values (JSON) under keys an executor makes, so that a
// call whose inputs changed in part redoes only that part.
type PartCache interface {
	// Get returns the value stored under key, and whether there is one.
	Get(key string) (json.RawMessage, bool, error)
	// Put stores value under key; it is committed with the run's results.
	Put(key string, value json.RawMessage)
}

// Provider is a model server a flow declares (a provider block), its
// key read from the secret it names.
type Provider struct {
	Name    string
	BaseURL string
	APIKey  string // "" for none
	// RPM, TPM and Concurrency are its limits; 0: none of its own.
	RPM, TPM, Concurrency int
	// Prices are USD per million tokens by model.
	Prices map[string]lang.Price
	// Stream is whether its steps stream by default; nil: they do.
	Stream *bool
}

// Tools are the flows and blocks an llm step's model may call, which the
// runtime runs.
type Tools struct {
	Defs []ToolDef
	// Max is how many calls the model may make in all.
	Max int
	// Call runs one call of the model's: the tool named name with its
	// arguments as the model wrote them (a JSON object, unchecked). It
	// returns the result as JSON text; an error is a message for the
	// model (arguments that do not fit, a tool that failed, an unknown
	// name), unless the context ended. Calls may run concurrently.
	Call func(ctx context.Context, id, name, args string) (string, error)
}

// ToolDef is a tool as the model sees it.
type ToolDef struct {
	Name        string
	Description string
	Parameters  json.RawMessage // the JSON Schema of the arguments
}

// Queued is implemented by executors that may wait for capacity before
// they run a block (the sandbox's pool of worker processes). The runtime
// gives them the attempt's timeout in Call.Timeout instead of on the
// context, and they start its clock when the block starts, so that time
// spent waiting for a worker is never a step's. They bound the wait
// themselves and report it with a *WaitError.
type Queued interface {
	Executor
	Queued()
}

// ErrFinal is wrapped by an error that retrying cannot change: the step
// fails at once, whatever its retry block says (a flow test's mocked
// failure).
var ErrFinal = errors.New("final")

// WaitError is the error of a call that waited too long for capacity.
type WaitError struct {
	Waited time.Duration
	For    string // what it waited for: "a sandbox worker (all 2 were busy)"
}

func (e *WaitError) Error() string {
	return fmt.Sprintf("waited %s for %s", e.Waited.Round(time.Millisecond), e.For)
}

// Show returns s as a message may show it: with the text of sensitive
// values replaced. Errors are built from shown values, before any quoting
// or escaping, so that no encoding of a secret can reach a message:
//
//	fmt.Errorf("cannot read %q", call.Show(path))
func (c *Call) Show(s string) string {
	if c == nil || c.Redact == nil {
		return s
	}
	return c.Redact(s)
}

// Result is what a block returns: a value for each output field (the
// runtime converts them to the declared types), and the tokens used by llm
// blocks.
type Result struct {
	Outputs map[string]cty.Value
	Usage   *Usage
}

// Usage counts the tokens of LLM calls, and what they cost.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// CostUSD is what the calls cost in US dollars, from their models'
	// prices; nil when none of them had a price (never a guess).
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// Unpriced counts the calls whose model had no price, which CostUSD
	// leaves out.
	Unpriced int `json:"unpriced_calls,omitempty"`
	// Calls counts the model's replies (round trips that were answered).
	Calls int `json:"calls,omitempty"`
}

// Add adds o to u: tokens, cost and unpriced calls.
func (u *Usage) Add(o Usage) {
	u.PromptTokens += o.PromptTokens
	u.CompletionTokens += o.CompletionTokens
	u.TotalTokens += o.TotalTokens
	u.Unpriced += o.Unpriced
	u.Calls += o.Calls
	if o.CostUSD != nil {
		c := *o.CostUSD
		if u.CostUSD != nil {
			c += *u.CostUSD
		}
		u.CostUSD = &c
	}
}

// Executor runs blocks of one runtime. The context carries the attempt's
// timeout and the run's cancellation; an executor must return promptly when
// it is done.
type Executor interface {
	Execute(ctx context.Context, call *Call) (*Result, error)
}

// ExecutorFunc adapts a function to Executor.
type ExecutorFunc func(ctx context.Context, call *Call) (*Result, error)

// Execute calls f.
func (f ExecutorFunc) Execute(ctx context.Context, call *Call) (*Result, error) { return f(ctx, call) }

// Executors maps a block to the executor that runs it: built-ins by name,
// user blocks by runtime.
type Executors struct {
	Builtins map[string]Executor
	Runtimes map[string]Executor // lang.RuntimeGo, lang.RuntimeJS, lang.RuntimeLLM
}

// For returns the executor of a block, or an error saying what is missing.
func (e *Executors) For(b *Block) (Executor, error) {
	if b.Builtin() {
		if ex := e.Builtins[b.Name]; ex != nil {
			// vector_search embeds a query given without a vector on
			// the executor of llm blocks, as embed does.
			if vs, ok := ex.(QueryEmbedderUser); ok && !vs.HasEmbedder() {
				if qe, ok := e.Runtimes[lang.RuntimeLLM].(QueryEmbedder); ok {
					return vs.WithEmbedder(qe), nil
				}
			}
			return ex, nil
		}
		// A built-in that calls a model (embed) runs on the executor of
		// llm blocks, which holds the model servers' configuration and
		// limits.
		if ex := e.Runtimes[lang.RuntimeLLM]; ex != nil && b.Remote == RemoteModel {
			return ex, nil
		}
		return nil, fmt.Errorf("the built-in block %q cannot run in this build", b.Name)
	}
	if ex := e.Runtimes[b.Runtime]; ex != nil {
		return ex, nil
	}
	return nil, fmt.Errorf("block %q has runtime %q, which this build cannot run yet", b.Name, b.Runtime)
}
