package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/time/rate"
)

// Backoff between retries: exponential from backoffBase, capped at
// backoffCap, with jitter. A Retry-After longer than maxRetryAfter is not
// waited for.
const (
	backoffBase   = 500 * time.Millisecond
	backoffCap    = 20 * time.Second
	maxRetryAfter = 2 * time.Minute
	defaultOpenAI = "https://api.openai.com/v1"
	// httpTimeout bounds one request when the step sets no timeout, so
	// that a server that never answers cannot hang a run.
	httpTimeout = 10 * time.Minute
)

// transport sends chat completions to the server within the limits that
// every step shares: at most Concurrency requests in flight and RPM
// requests a minute, retries included.
type transport struct {
	client  *openai.Client
	baseURL string // for messages
	apiKey  string // never shown: scrubbed from every message
	*limits
	maxRetries int
	log        *promptLog // nil: no prompt log
	names      settingNames
	// prices are the environment's provider's prices (the transport of a
	// provider block prices by its call's provider).
	prices map[string]lang.Price
	// noStream is set once the server refused a streaming request: it
	// is not asked to stream again.
	noStream atomic.Bool
}

// settingNames are what messages call the settings of a transport's
// server: the environment's variables, or a provider's arguments.
type settingNames struct {
	baseURL, apiKey, rpm, tpm, concurrency string
	keyMark                                string // what stands for the key where a message had it
}

// envNames are the names of the environment's provider's settings.
var envNames = settingNames{baseURL: EnvBaseURL, apiKey: EnvAPIKey, rpm: EnvRPM, tpm: "tpm", concurrency: EnvConcurrency, keyMark: EnvAPIKey}

// limits are what every request to one server shares: at most
// cap(sem) in flight, rpm requests and tpm tokens a minute.
type limits struct {
	sem     chan struct{}
	limiter *rate.Limiter // nil: no limit
	rpm     int
	tokens  *tokenLimiter // nil: no limit
}

func newLimits(concurrency, rpm, tpm int) *limits {
	l := &limits{sem: make(chan struct{}, concurrency), rpm: rpm}
	if rpm > 0 {
		l.limiter = rate.NewLimiter(rate.Limit(float64(rpm)/60), max(1, rpm/60))
	}
	if tpm > 0 {
		l.tokens = newTokenLimiter(tpm, realClock{})
	}
	return l
}

func newTransport(cfg Config) *transport {
	base := cfg.BaseURL
	if base == "" {
		base = defaultOpenAI
	}
	t := newTransportTo(cfg, base, cfg.APIKey, newLimits(cfg.Concurrency, cfg.RPM, 0), envNames, newPromptLog(cfg))
	t.prices = cfg.Prices
	return t
}

// newPromptLog is the prompt log of cfg; nil: none.
func newPromptLog(cfg Config) *promptLog {
	if cfg.LogPrompts == nil {
		return nil
	}
	return &promptLog{w: cfg.LogPrompts}
}

// newTransportTo is a transport to the server at baseURL with apiKey,
// within lim, sending with cfg's HTTP client and writing to log (nil:
// none).
func newTransportTo(cfg Config, baseURL, apiKey string, lim *limits, names settingNames, log *promptLog) *transport {
	oc := openai.DefaultConfig(apiKey)
	oc.BaseURL = baseURL
	t := &transport{baseURL: baseURL, apiKey: apiKey, limits: lim, maxRetries: cfg.MaxRetries, names: names, log: log}
	if cfg.HTTPClient != nil {
		oc.HTTPClient = wrapZero(cfg.HTTPClient)
	} else {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = cap(lim.sem)
		oc.HTTPClient = wrapZero(&http.Client{Transport: tr, Timeout: httpTimeout})
	}
	t.client = openai.NewClientWithConfig(oc)
	return t
}

// request is one chat completion as the executor means it; the fields
// the prompt log shows are kept as given.
type request struct {
	model      string
	modelWhere string // where the model is named, for an unknown model's advice; empty: stepModelWhere
	messages   []openai.ChatCompletionMessage
	format     *openai.ChatCompletionResponseFormat
	sampling
	tools       []openai.Tool
	noToolCalls bool // tool_choice none: the tools are listed but may not be called
	stream      bool // sent with "stream": true
}

func (r *request) openai() openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{Model: r.model, Messages: r.messages, ResponseFormat: r.format, Tools: r.tools}
	if r.noToolCalls {
		req.ToolChoice = "none"
	}
	if r.temperature != nil {
		req.Temperature = float32(*r.temperature) // 0 is put back by zeroTransport
	}
	if r.topP != nil {
		req.TopP = float32(*r.topP) // 0 is put back by zeroTransport
	}
	if r.seed != nil {
		seed := int(*r.seed)
		req.Seed = &seed
	}
	req.Stop = r.stop
	if r.maxTokens > 0 {
		if reasoningModel(r.model) {
			req.MaxCompletionTokens = r.maxTokens // these models refuse max_tokens
		} else {
			req.MaxTokens = r.maxTokens
		}
	}
	return req
}

// zeroParams names the request's numeric parameters that are set to 0,
// which go-openai would leave out of the body (see zeroTransport).
func (r *request) zeroParams() []string {
	var out []string
	if r.temperature != nil && *r.temperature == 0 {
		out = append(out, "temperature")
	}
	if r.topP != nil && *r.topP == 0 {
		out = append(out, "top_p")
	}
	return out
}

// sampling are the parameters of a request that shape the reply, as the
// step gives them; nil and empty: the server's default.
type sampling struct {
	temperature *float64
	topP        *float64
	seed        *int64
	stop        []string
	maxTokens   int // 0: unset
}

// reasoningModel reports whether OpenAI's model wants max_completion_tokens.
func reasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// complete sends a request, retrying what may succeed on a later try. Every
// try waits for a place under the concurrency and rate limits, and is
// written to the prompt log and the call's trace.
func (t *transport) complete(ctx context.Context, call *blocks.Call, r *request) (openai.ChatCompletionResponse, error) {
	req := r.openai()
	ctx = withZeroParams(ctx, r.zeroParams())
	for n := 0; ; n++ {
		if err := t.acquire(ctx); err != nil {
			return openai.ChatCompletionResponse{}, err
		}
		counted, err := t.waitTokens(ctx, r)
		if err != nil {
			<-t.sem
			return openai.ChatCompletionResponse{}, err
		}
		start := time.Now()
		delta, relayed := relayOf(ctx)
		reply, header, err := t.roundTrip(ctx, req, r, delta, relayed)
		resp := reply.resp
		<-t.sem
		if err == nil {
			t.tookTokens(counted, resp)
		}
		dur := time.Since(start)
		var f *failure
		if err != nil {
			f = t.classify(ctx, err, header, r)
		}
		t.keep(try{call: call, r: r, start: start, dur: dur, reply: reply, f: f, n: n + 1})
		if f == nil {
			return resp, nil
		}
		if err := t.retryAfterFailure(ctx, f, n); err != nil {
			return resp, err
		}
	}
}

// keep writes a round trip to the prompt log and the call's trace.
func (t *transport) keep(tr try) {
	if t.log == nil && (tr.call == nil || tr.call.Trace == nil) {
		return
	}
	prices := t.prices
	if tr.call != nil && tr.call.Provider != nil {
		prices = tr.call.Provider.Prices
	}
	rec := tr.record(func(u blocks.Usage) *float64 {
		p, ok := prices[tr.r.model]
		if !ok {
			if p, ok = prices[tr.reply.resp.Model]; !ok {
				return nil
			}
		}
		c := costOf(p, u.PromptTokens, u.CompletionTokens)
		return &c
	})
	t.log.write(rec)
	if tr.call != nil && tr.call.Trace != nil {
		tr.call.Trace(rec)
	}
}

// retryAfterFailure decides, after try (from 0) failed with f, whether to
// try again: it waits the backoff (or the server's Retry-After) and
// returns nil, or returns the error to give up with (f, its message saying
// why there is no further try).
func (t *transport) retryAfterFailure(ctx context.Context, f *failure, try int) error {
	if !f.retry || try >= t.maxRetries {
		if f.retry && try > 0 {
			f.msg += fmt.Sprintf(" (after %d tries)", try+1)
		}
		return f
	}
	wait := backoff(try)
	if f.hasRetryAfter {
		if f.retryAfter > maxRetryAfter {
			f.msg += fmt.Sprintf("; the server asks to wait %s before trying again", f.retryAfter.Round(time.Second))
			return f
		}
		wait = f.retryAfter + rand.N(f.retryAfter/10+1)
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
		f.msg += fmt.Sprintf("; no time is left before the step's timeout to try again in %s", wait.Round(time.Millisecond))
		return f
	}
	blocks.Notify(ctx, blocks.Notice{Kind: blocks.NoticeRetry, Wait: wait,
		Message: fmt.Sprintf("%s; trying again in %s (try %d of %d)", f.msg, wait.Round(time.Millisecond), try+2, t.maxRetries+1)})
	if err := sleep(ctx, wait); err != nil {
		return t.ctxError(ctx, err)
	}
	return nil
}

// acquire waits for a place under the concurrency limit, then for the rate
// limiter. It holds the place while it waits for the limiter, so that a
// request starts as soon as its token is there; then it asks the call
// whether the request may still be sent (blocks.Proceed).
func (t *transport) acquire(ctx context.Context) error {
	select {
	case t.sem <- struct{}{}:
	case <-ctx.Done():
		return t.ctxError(ctx, ctx.Err())
	}
	if t.limiter == nil {
		return t.proceed(ctx)
	}
	if err := t.limiter.Wait(ctx); err != nil {
		<-t.sem
		if ctx.Err() != nil {
			return t.ctxError(ctx, ctx.Err())
		}
		return fmt.Errorf("the limit of %d requests a minute (%s) leaves no time for this request before the step's timeout: %w",
			t.rpm, t.names.rpm, context.DeadlineExceeded)
	}
	return t.proceed(ctx)
}

// proceed gives the place back when the call may not go on.
func (t *transport) proceed(ctx context.Context) error {
	if err := blocks.Proceed(ctx); err != nil {
		<-t.sem
		return err
	}
	return nil
}

// backoff is how long to wait before retry number try (from 0): an
// exponential delay, capped, of which a random half is waited.
func backoff(try int) time.Duration {
	d := backoffCap
	if try < 16 {
		d = min(backoffBase<<try, backoffCap)
	}
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// parseRetryAfter reads how long the server asks us to wait: Retry-After in
// seconds or as an HTTP date, or OpenAI's retry-after-ms.
func parseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if ms := h.Get("Retry-After-Ms"); ms != "" {
		if f, err := strconv.ParseFloat(ms, 64); err == nil && f >= 0 {
			return time.Duration(f * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second)), true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// failure is a failed try: what to tell the user, and whether another try
// may succeed.
type failure struct {
	msg           string
	retry         bool
	status        int    // HTTP status; 0 when there was no reply
	serverMsg     string // the server's own message
	hasRetryAfter bool
	retryAfter    time.Duration
	err           error // the underlying error, for errors.Is
}

func (f *failure) Error() string { return f.msg }
func (f *failure) Unwrap() error { return f.err }

// stepModelWhere says where a step's model is named: the advice of an
// unknown model's error when the request does not say otherwise.
var stepModelWhere = "in the step's model argument or in " + EnvModel

// classify turns an error of go-openai into a failure that says what to do.
func (t *transport) classify(ctx context.Context, err error, h http.Header, r *request) *failure {
	model := r.model
	if ctx.Err() != nil {
		return &failure{msg: t.ctxError(ctx, ctx.Err()).Error(), err: ctx.Err()}
	}
	status, code, msg := statusOf(err)
	if status == 0 {
		return t.classifyNetwork(err, model)
	}
	f := &failure{status: status, serverMsg: t.scrub(msg), err: err}
	detail := fmt.Sprintf("%d %s", status, http.StatusText(status))
	if f.serverMsg != "" {
		detail += ": " + f.serverMsg
	}
	switch {
	case status == http.StatusUnauthorized && t.apiKey == "":
		f.msg = fmt.Sprintf("the model server at %s requires an API key (%s); set %s", t.baseURL, detail, t.names.apiKey)
	case status == http.StatusUnauthorized:
		f.msg = fmt.Sprintf("the model server at %s refused the API key (%s); check %s", t.baseURL, detail, t.names.apiKey)
	case status == http.StatusForbidden:
		f.msg = fmt.Sprintf("the model server at %s denied access (%s); check that the key of %s may use model %q", t.baseURL, detail, t.names.apiKey, model)
	case modelNotFound(status, code, msg):
		where := r.modelWhere
		if where == "" {
			where = stepModelWhere
		}
		f.msg = fmt.Sprintf("the model %q was not found at %s (%s); name a model the server offers %s", model, t.baseURL, detail, where)
	case status == http.StatusNotFound:
		f.msg = fmt.Sprintf("the model server at %s has no chat completions endpoint (%s); check %s (it usually ends in /v1)", t.baseURL, detail, t.names.baseURL)
	case status == http.StatusTooManyRequests && code == "insufficient_quota":
		f.msg = fmt.Sprintf("the account of %s has no quota left (%s); check its plan and billing", t.names.apiKey, detail)
	case status == http.StatusTooManyRequests:
		f.msg = fmt.Sprintf("the model server is rate limiting requests (%s); lower %s or %s, or try again later", detail, t.names.rpm, t.names.concurrency)
		f.retry = true
	case status >= 500 || status == http.StatusRequestTimeout:
		f.msg = fmt.Sprintf("the model server failed (%s); try again later", detail)
		f.retry = true
	default:
		f.msg = fmt.Sprintf("the model server rejected the request (%s)", detail)
	}
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		f.retryAfter, f.hasRetryAfter = parseRetryAfter(h, time.Now())
	}
	return f
}

// classifyNetwork handles errors without an HTTP status: the server could
// not be reached, the connection broke, or the reply was not a chat
// completion.
func (t *transport) classifyNetwork(err error, model string) *failure {
	f := &failure{err: err}
	inner := err
	var ue *url.Error
	if errors.As(err, &ue) {
		inner = ue.Err // without the method and URL, said below
	}
	var dns *net.DNSError
	var ne net.Error
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.As(err, &dns) && !dns.IsTimeout:
		f.msg = fmt.Sprintf("cannot reach the model server at %s: %s; check %s", t.baseURL, t.scrub(inner.Error()), t.names.baseURL)
	case errors.As(err, &ne) && ne.Timeout():
		f.msg = fmt.Sprintf("the model server at %s did not answer in time: %s", t.baseURL, t.scrub(inner.Error()))
		f.retry = true
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		f.msg = fmt.Sprintf("the connection to the model server at %s broke: %s", t.baseURL, t.scrub(inner.Error()))
		f.retry = true
	case errors.As(err, &se), errors.As(err, &te):
		f.msg = fmt.Sprintf("the server at %s did not reply with a chat completion (%s); check %s", t.baseURL, t.scrub(err.Error()), t.names.baseURL)
	case ue != nil:
		f.msg = fmt.Sprintf("cannot reach the model server at %s: %s; check %s", t.baseURL, t.scrub(inner.Error()), t.names.baseURL)
	default:
		// go-openai's own checks of the request, such as parameters a
		// reasoning model does not take.
		f.msg = fmt.Sprintf("model %q: %s", model, t.scrub(err.Error()))
	}
	return f
}

// ctxError says why a call stopped when its context ended.
func (t *transport) ctxError(ctx context.Context, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return fmt.Errorf("no reply from the model server at %s before the step's timeout: %w", t.baseURL, context.DeadlineExceeded)
	}
	return fmt.Errorf("the call to the model was cancelled: %w", err)
}

// minScrubbedKey is the length of the shortest API key scrubbed from
// messages. Local servers take any key, and are run with keys such as x,
// EMPTY or ollama, which guard nothing and which scrubbing would cut out
// of ordinary words.
const minScrubbedKey = 8

// scrub removes the API key from a text that will be shown or logged,
// where it is a whole token: not where its text is part of a longer word
// (see scrubToken). A key shorter than minScrubbedKey is left.
func (t *transport) scrub(s string) string {
	if len(t.apiKey) < minScrubbedKey {
		return s
	}
	mark := t.names.keyMark
	if mark == "" {
		mark = EnvAPIKey
	}
	return scrubToken(s, t.apiKey, "("+mark+")")
}

// scrubToken replaces each occurrence of token in s that is not part of
// a longer word: one whose text is not continued, on either side, by a
// letter, a digit or an underscore that would make a word with it.
func scrubToken(s, token, with string) string {
	first, _ := utf8.DecodeRuneInString(token)
	last, _ := utf8.DecodeLastRuneInString(token)
	var b strings.Builder
	done := 0 // s[:done] is in b
	for from := 0; ; {
		i := strings.Index(s[from:], token)
		if i < 0 {
			break
		}
		i += from
		end := i + len(token)
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if i > 0 && wordRune(before) && wordRune(first) || end < len(s) && wordRune(after) && wordRune(last) {
			_, n := utf8.DecodeRuneInString(s[i:])
			from = i + n
			continue
		}
		b.WriteString(s[done:i])
		b.WriteString(with)
		done, from = end, end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

func wordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// statusOf returns the HTTP status, error code and message of an error
// reply, or status 0 when the error is not one.
func statusOf(err error) (status int, code, msg string) {
	var ae *openai.APIError
	var re *openai.RequestError
	switch {
	case errors.As(err, &ae):
		if ae.Code != nil {
			code = fmt.Sprint(ae.Code)
		}
		return ae.HTTPStatusCode, code, ae.Message
	case errors.As(err, &re):
		body := strings.TrimSpace(string(re.Body))
		if len(body) > 300 {
			body = body[:300] + "…"
		}
		return re.HTTPStatusCode, "", body
	}
	return 0, "", ""
}

// modelNotFound reports whether an error reply says the model is unknown.
func modelNotFound(status int, code, msg string) bool {
	if code == "model_not_found" {
		return true
	}
	if status != http.StatusNotFound && status != http.StatusBadRequest {
		return false
	}
	m := strings.ToLower(msg)
	if !strings.Contains(m, "model") {
		return false
	}
	for _, s := range []string{"not found", "does not exist", "not exist", "unknown model", "invalid model", "no such model", "not available"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// formatRejected reports whether a failure says that the server does not
// take the response_format sent: a 400 whose message names it, or a 404
// or 422 about it (422 is how servers built on pydantic refuse an unknown
// value).
func formatRejected(err error) bool {
	var f *failure
	if !errors.As(err, &f) {
		return false
	}
	m := strings.ToLower(f.serverMsg)
	mentions := strings.Contains(m, "response_format") || strings.Contains(m, "json_schema") ||
		strings.Contains(m, "json_object") || strings.Contains(m, "response format")
	switch f.status {
	case http.StatusBadRequest, http.StatusNotFound:
		return mentions
	case http.StatusUnprocessableEntity:
		return mentions || !strings.Contains(m, "model")
	}
	return false
}
