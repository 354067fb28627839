package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/tiktoken-go/tokenizer"
	"golang.org/x/time/rate"
)

// Tokens are counted before a request is sent, so that a provider's tpm
// limit acts before the server's: with the model's own encoding for
// OpenAI's models (tiktoken's, embedded in the program: nothing is
// downloaded), and with cl100k_base as an estimate for other models,
// whose tokenizers differ.

// estimateEncoding is the encoding that estimates the tokens of models
// tiktoken has no encoding of.
const estimateEncoding = tokenizer.Cl100kBase

// codecs caches one codec per encoding: making one compiles its
// pattern.
var codecs sync.Map // tokenizer.Encoding → tokenizer.Codec

// codecFor returns the codec of model, and whether it is the model's own
// (false: an estimate).
func codecFor(model string) (tokenizer.Codec, bool) {
	exact := true
	enc, err := encodingOf(model)
	if err != nil {
		enc, exact = estimateEncoding, false
	}
	if c, ok := codecs.Load(enc); ok {
		return c.(tokenizer.Codec), exact
	}
	c, err := tokenizer.Get(enc)
	if err != nil {
		c, _ = tokenizer.Get(estimateEncoding)
		enc, exact = estimateEncoding, false
	}
	actual, _ := codecs.LoadOrStore(enc, c)
	return actual.(tokenizer.Codec), exact
}

// encodingOf is the encoding tiktoken gives model.
func encodingOf(model string) (tokenizer.Encoding, error) {
	c, err := tokenizer.ForModel(tokenizer.Model(model))
	if err != nil {
		return "", err
	}
	return tokenizer.Encoding(c.GetName()), nil
}

// Per OpenAI's accounting of chat messages: each message costs a few
// tokens besides its text, and the reply is primed with a few more.
const (
	tokensPerMessage = 3
	tokensPerReply   = 3
)

// promptTokens counts the tokens of a request's prompt: its messages,
// the tools it lists and the response format's schema. exact is false
// when the model's tokenizer is not known and the count is an estimate.
func promptTokens(r *request) (n int, exact bool) {
	c, exact := codecFor(r.model)
	count := func(s string) int {
		if s == "" {
			return 0
		}
		k, err := c.Count(s)
		if err != nil {
			return len(s) / 4 // text the codec refuses: about four bytes a token
		}
		return k
	}
	for _, m := range r.messages {
		n += tokensPerMessage + count(m.Role) + count(m.Content) + count(m.Name)
		for _, tc := range m.ToolCalls {
			n += count(tc.Function.Name) + count(tc.Function.Arguments)
		}
	}
	n += tokensPerReply
	if len(r.tools) > 0 {
		if b, err := json.Marshal(r.tools); err == nil {
			n += count(string(b))
		}
	}
	if r.format != nil && r.format.JSONSchema != nil {
		if b, err := json.Marshal(r.format.JSONSchema); err == nil {
			n += count(string(b))
		}
	}
	return n, exact
}

// A clock tells the time and waits; tests give the token limiter one
// of their own.
type clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time                                   { return time.Now() }
func (realClock) Sleep(ctx context.Context, d time.Duration) error { return sleep(ctx, d) }

// tokenLimiter holds a provider's requests to tpm tokens a minute,
// prompt and completion: a bucket of tpm tokens that fills at tpm a
// minute. A request waits until the bucket has its prompt's tokens, and
// its completion's (and what the count of the prompt missed) are taken
// when the reply says them, so that the next request waits for them.
type tokenLimiter struct {
	tpm   int
	lim   *rate.Limiter
	clock clock
}

func newTokenLimiter(tpm int, c clock) *tokenLimiter {
	return &tokenLimiter{tpm: tpm, lim: rate.NewLimiter(rate.Limit(float64(tpm)/60), tpm), clock: c}
}

// errTooManyTokens is the error of a prompt larger than a minute of the
// limit: it could never be sent.
var errTooManyTokens = errors.New("the prompt is larger than the tokens-per-minute limit")

// wait takes n tokens, waiting until the bucket has them. It fails when
// n is more than a minute's worth, and when the context ends (or would
// end) first.
func (l *tokenLimiter) wait(ctx context.Context, n int) error {
	if n > l.tpm {
		return errTooManyTokens
	}
	now := l.clock.Now()
	res := l.lim.ReserveN(now, n)
	delay := res.DelayFrom(now)
	if delay <= 0 {
		return nil
	}
	if deadline, ok := ctx.Deadline(); ok && deadline.Sub(now) < delay {
		res.CancelAt(now)
		return context.DeadlineExceeded
	}
	if err := l.clock.Sleep(ctx, delay); err != nil {
		res.CancelAt(l.clock.Now())
		return err
	}
	return nil
}

// take takes n tokens already used, without waiting: the next request
// waits for them.
func (l *tokenLimiter) take(n int) {
	if n <= 0 {
		return
	}
	l.lim.ReserveN(l.clock.Now(), min(n, l.tpm))
}

// waitTokens waits, before a try of r, for its prompt's tokens under the
// transport's tpm limit; it returns how many it took.
func (t *transport) waitTokens(ctx context.Context, r *request) (int, error) {
	if t.tokens == nil {
		return 0, nil
	}
	n, exact := promptTokens(r)
	err := t.tokens.wait(ctx, n)
	switch {
	case err == nil:
		return n, nil
	case errors.Is(err, errTooManyTokens):
		how := fmt.Sprintf("%d tokens", n)
		if !exact {
			how = fmt.Sprintf("about %d tokens (an estimate: model %q has no tokenizer flowctl knows, so %s counted them)", n, r.model, estimateEncoding)
		}
		return 0, &failure{msg: fmt.Sprintf("the prompt has %s, more than %s (%d tokens a minute) lets through; shorten it or raise the limit", how, t.names.tpm, t.tokens.tpm)}
	case ctx.Err() != nil:
		return 0, t.ctxError(ctx, ctx.Err())
	}
	return 0, fmt.Errorf("the limit of %d tokens a minute (%s) leaves no time for this request before the step's timeout: %w",
		t.tokens.tpm, t.names.tpm, context.DeadlineExceeded)
}

// tookTokens accounts, after a reply, for the tokens the count before it
// did not take: the completion's, and the prompt's beyond the count.
func (t *transport) tookTokens(counted int, resp openai.ChatCompletionResponse) {
	if t.tokens == nil {
		return
	}
	t.tokens.take(resp.Usage.PromptTokens + resp.Usage.CompletionTokens - counted)
}
