package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

// A webhook trigger (lang.Trigger with a Webhook) is served at its path,
// under serve's address, without a bearer token: its signature is its
// authentication (verify.go). The request is checked in this order, and
// nothing starts before every check passed: method (405), body size
// (413) and its arrival within webhookReadTimeout (408), signature (401,
// logged without the body), body (400 naming the field that does not fit
// body_schema, but 204 when when is false with the body as sent), when
// (204 when false), inputs (400 naming the input). A delivery id
// (X-GitHub-Delivery, webhook-id, a Stripe event's id) is an idempotency
// key of the run: a delivery again (a sender's retry, or a replay) starts
// no run and answers with the one it started, 2xx, so that the sender
// stops retrying. The answers name what does not fit, never with the
// flow's source: the caller is another service.

// webhookFor is the flow entry and trigger whose webhook is at path for
// method, the other triggers with a webhook there for that method, and
// the methods the path is served for. Triggers at one path for different
// methods (n8n's Webhook nodes of one path, GET and POST) do not clash;
// when none is for method, the trigger is one at the path (the request
// is answered 405 with the methods).
func (s *Server) webhookFor(path, method string) (*flowEntry, *lang.Trigger, []string, []string) {
	var (
		entry   *flowEntry
		found   *lang.Trigger
		others  []string
		methods []string
	)
	for _, e := range s.flows.list() {
		if e.prog == nil {
			continue
		}
		for _, t := range e.prog.Triggers {
			if t.Webhook == nil || t.Webhook.Path != path {
				continue
			}
			if !slices.Contains(methods, t.Webhook.Method) {
				methods = append(methods, t.Webhook.Method)
			}
			switch {
			case found == nil || found.Webhook.Method != method && t.Webhook.Method == method:
				entry, found = e, t
			case t.Webhook.Method == found.Webhook.Method:
				others = append(others, e.prog.Flow.Name+"/"+t.Name)
			}
		}
	}
	if found != nil && found.Webhook.Method != method {
		others = nil // answered 405 before anything else
	}
	return entry, found, others, methods
}

// logUnverified logs, once per server, each webhook that says
// verify = "none": anyone who can reach it starts runs.
func (s *Server) logUnverified() {
	for _, e := range s.flows.list() {
		if e.prog == nil {
			continue
		}
		for _, t := range e.prog.Triggers {
			if t.Webhook != nil && t.Webhook.Verify == lang.VerifyNone {
				s.log.Warn("webhook without verification: any request to it starts a run", slog.String("flow", e.prog.Flow.Name),
					slog.String("trigger", t.Name), slog.String("path", t.Webhook.Path))
			}
		}
	}
}

func (s *Server) serveWebhook(w http.ResponseWriter, r *http.Request, e *flowEntry, t *lang.Trigger, others, methods []string) {
	prog, wh := e.prog, t.Webhook
	flow := prog.Flow.Name
	if len(others) > 0 {
		// The caller has not shown a signature yet: the log names the
		// triggers, the answer does not.
		s.log.Error("webhook refused: several triggers have its path; give each its own", slog.String("request_id", requestID(r.Context())),
			slog.String("path", wh.Path), slog.String("triggers", strings.Join(append([]string{flow + "/" + t.Name}, others...), ", ")))
		writeError(w, http.StatusConflict, "webhook_conflict", fmt.Sprintf("Several triggers have a webhook at %s; the server's log names them.", wh.Path), nil, nil)
		return
	}
	if r.Method != wh.Method {
		w.Header().Set("Allow", strings.Join(methods, ", "))
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", fmt.Sprintf("The webhook at %s takes %s requests.", wh.Path, strings.Join(methods, " and ")), nil, nil)
		return
	}
	// The body arrives within webhookReadTimeout: a caller that sends it
	// a byte a second would else hold the connection for days. The
	// deadline is lifted once it is read: respond = "outputs" waits.
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(webhookReadTimeout)); err != nil {
		s.internalError(w, r, fmt.Errorf("webhook %s: the body's read deadline: %w", wh.Path, err))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, wh.MaxBody))
	if err != nil {
		// The deadline stays: the server discards what is left of the
		// body before it answers.
		var mb *http.MaxBytesError
		switch {
		case errors.As(err, &mb):
			writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("The body is over %d bytes.", wh.MaxBody), nil, nil)
			return
		case errors.Is(err, os.ErrDeadlineExceeded):
			writeError(w, http.StatusRequestTimeout, "timeout", fmt.Sprintf("The body did not arrive within %s.", webhookReadTimeout), nil, nil)
			return
		}
		writeError(w, http.StatusBadRequest, "bad_request", "The body could not be read.", nil, nil)
		return
	}
	rc.SetReadDeadline(time.Time{})
	secret := ""
	if wh.Secret != "" {
		sec := prog.SecretsByName[wh.Secret]
		v, ok := os.LookupEnv(sec.Env)
		if !ok || v == "" {
			s.internalError(w, r, fmt.Errorf("the secret %s of webhook trigger %s of flow %s is not set: set %s", sec.Name, t.Name, flow, sec.Env))
			return
		}
		secret = v
	}
	verify := s.replayBound(wh)
	if wh.HeaderSecret != "" {
		sec := prog.SecretsByName[wh.HeaderSecret]
		v, ok := os.LookupEnv(sec.Env)
		if !ok || v == "" {
			s.internalError(w, r, fmt.Errorf("the secret %s of webhook trigger %s of flow %s is not set: set %s", sec.Name, t.Name, flow, sec.Env))
			return
		}
		named := *verify
		named.Header = v
		verify = &named
	}
	var auth *authError
	if err := verifyWebhook(verify, secret, r.Header, body, time.Now()); errors.Is(err, errSecret) {
		s.internalError(w, r, fmt.Errorf("the secret %s of webhook trigger %s of flow %s: %w", wh.Secret, t.Name, flow, err))
		return
	} else if err != nil {
		s.log.Warn("webhook refused: its signature does not verify", slog.String("request_id", requestID(r.Context())),
			slog.String("flow", flow), slog.String("trigger", t.Name), slog.String("verify", wh.Verify),
			slog.String("remote", r.RemoteAddr), slog.String("reason", err.Error()))
		if errors.As(err, &auth) {
			// As n8n answers: the challenge, 401 for no credential, 403
			// for a wrong one.
			w.Header().Set("WWW-Authenticate", `Basic realm="Webhook"`)
			msg := map[int]string{http.StatusUnauthorized: "Authorization is required.", http.StatusForbidden: "Authorization data is wrong."}[auth.code]
			writeError(w, auth.code, map[int]string{http.StatusUnauthorized: "unauthorized", http.StatusForbidden: "forbidden"}[auth.code], msg, nil, nil)
			return
		}
		writeError(w, http.StatusUnauthorized, "unauthorized", "The request's signature does not verify.", nil, nil)
		return
	}
	asSent, err := requestBody(wh, r.Header.Get("Content-Type"), body)
	bodyVal := asSent
	if err == nil {
		bodyVal, err = compiler.CheckBody(t, asSent)
	}
	headers, query, method := headerMap(r.Header), queryMap(r.URL.Query()), cty.StringVal(r.Method)
	if err != nil {
		// A delivery whose when is false with the body as sent starts no
		// run, so its body need not fit: GitHub's ping is 204, not 400.
		if asSent != cty.NilVal && t.When != nil {
			if start, d := prog.TriggerWhen(t, compiler.TriggerVars(t, asSent, headers, query, method, nil)); !d.HasErrors() && !start {
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		writeError(w, http.StatusBadRequest, "invalid_body", fmt.Sprintf("The body does not fit trigger %s: %s.", t.Name, err), nil, nil)
		return
	}
	vars := compiler.TriggerVars(t, bodyVal, headers, query, method, nil)
	start, diags := prog.TriggerWhen(t, vars)
	if diags.HasErrors() {
		writeError(w, http.StatusBadRequest, "invalid_request", "The request does not fit trigger "+t.Name+": "+lang.ErrorSentence(diags, false), nil, nil)
		return
	}
	if !start {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	inputs, diags := prog.TriggerInputs(t, vars)
	if diags.HasErrors() {
		writeError(w, http.StatusBadRequest, "invalid_inputs", "The request does not fit the flow's inputs: "+lang.ErrorSentence(diags, false), nil, nil)
		return
	}
	lim, diags := runtime.RunLimits(prog, inputs, t.Priority)
	if diags.HasErrors() {
		writeError(w, http.StatusBadRequest, "invalid_inputs", "The request gives no key for the flow's limits: "+lang.ErrorSentence(diags, false), nil, nil)
		return
	}
	var key *state.IdempotencyKey
	if id := deliveryID(wh, r.Header, asSent); id != "" {
		sum := sha256.Sum256(body)
		if wh.Verify == lang.VerifyStripe {
			// A Stripe event sent again may differ (its pending_webhooks
			// count): the event is its id.
			sum = sha256.Sum256([]byte(id))
		}
		key = &state.IdempotencyKey{Flow: flow, Key: "webhook " + t.Name + " " + id, Request: hex.EncodeToString(sum[:])}
	}
	id, had, ok := s.startRun(w, r, prog, inputs, "", lim, key)
	switch {
	case !ok:
		return
	case had != nil && had.Request != key.Request:
		s.answerKey(w, prog, key, had)
		return
	case had != nil && wh.Verify == lang.VerifyStandard && signedBefore(r.Header, had.CreatedAt):
		// The same message, signed no later than the delivery that
		// started the run: a replay, not the sender's retry (which is
		// signed anew when it is sent).
		s.log.Warn("webhook replayed", slog.String("flow", flow), slog.String("trigger", t.Name), slog.String("run_id", had.RunID))
		writeError(w, http.StatusConflict, "webhook_replayed", "This delivery was received before, with this signature: a sender's retry is signed anew.", nil, nil)
		return
	case had == nil:
		s.log.Info("webhook started a run", slog.String("flow", flow), slog.String("trigger", t.Name), slog.String("run_id", id))
	}
	s.respondWebhook(w, r, t, id, had == nil)
}

// replayBound is wh as verified: a Standard Webhooks or Stripe replay is
// answered with its run by its delivery id, which is kept IdempotencyExpiry
// from the first delivery, so its signed timestamp is within half of that
// of now (a replay of a timestamp within tolerance before and after it
// then finds the id).
func (s *Server) replayBound(wh *lang.Webhook) *lang.Webhook {
	if wh.Verify != lang.VerifyStandard && wh.Verify != lang.VerifyStripe || wh.Tolerance <= s.opts.IdempotencyExpiry/2 {
		return wh
	}
	bound := *wh
	bound.Tolerance = s.opts.IdempotencyExpiry / 2
	return &bound
}

// webhookReadTimeout bounds the read of a webhook's body (a variable for
// the tests).
var webhookReadTimeout = 30 * time.Second

// deliveryID is the delivery's id, which starts at most one run: GitHub's
// signedBefore says whether a Standard Webhooks delivery was signed (its
// webhook-timestamp, in seconds) no later than at.
func signedBefore(h http.Header, at time.Time) bool {
	ts, err := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	return err == nil && ts <= at.Unix()
}

// X-GitHub-Delivery, Standard Webhooks' webhook-id, the id of a Stripe
// event (the body's, signed: Stripe sends an event again, re-signed, until
// it is answered 2xx); "" for none.
func deliveryID(wh *lang.Webhook, h http.Header, body cty.Value) string {
	switch wh.Verify {
	case lang.VerifyGitHub:
		return h.Get("X-GitHub-Delivery")
	case lang.VerifyStandard:
		return h.Get("webhook-id")
	case lang.VerifyStripe:
		if ty := body.Type(); !body.IsNull() && ty.IsObjectType() && ty.HasAttribute("id") {
			if id := body.GetAttr("id"); id.Type() == cty.String && !id.IsNull() {
				return id.AsString()
			}
		}
	}
	return ""
}

// respondWebhook answers a webhook that started the run id (started, else
// one an earlier delivery started) as the trigger's respond says.
func (s *Server) respondWebhook(w http.ResponseWriter, r *http.Request, t *lang.Trigger, id string, started bool) {
	if t.Respond == lang.RespondAccepted {
		code := http.StatusAccepted
		if !started {
			code = http.StatusOK
		}
		s.writeRunStatus(w, code, id)
		return
	}
	// The wait is the trigger's timeout, not serve's deadline of a
	// request (withDeadline), which would end it in an empty answer; the
	// caller's going away ends it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), t.Timeout)
	defer cancel()
	gone := func() bool { return errors.Is(r.Context().Err(), context.Canceled) }
	defer context.AfterFunc(r.Context(), func() {
		if gone() {
			cancel()
		}
	})()
	run, err := s.awaitRun(ctx, id)
	switch {
	case err != nil && gone():
		return // the caller went away; the run goes on
	case err != nil && ctx.Err() != nil:
		writeJSON(w, http.StatusGatewayTimeout, map[string]any{"run_id": id, "error": map[string]string{"code": "timeout",
			"message": fmt.Sprintf("Run %s did not end within %s; it goes on.", id, t.Timeout)}})
		return
	case err != nil:
		s.internalError(w, r, err)
		return
	case run.Status != "ok":
		writeJSON(w, http.StatusInternalServerError, map[string]any{"run_id": id, "status": run.Status, "error": map[string]string{"code": "run_" + run.Status,
			"message": fmt.Sprintf("Run %s did not succeed; its record says why.", id)}})
		return
	}
	w.Header().Set("Flowctl-Run-Id", id)
	if t.Respond == lang.RespondOutputs {
		writeJSON(w, http.StatusOK, map[string]any{"run_id": id, "status": run.Status, "outputs": jsonOrEmpty(run.Outputs)})
		return
	}
	var outs map[string]json.RawMessage
	json.Unmarshal(run.Outputs, &outs)
	out := outs[t.Output]
	var str string
	if json.Unmarshal(out, &str) == nil {
		w.Header().Set("Content-Type", cmp(t.ContentType, "text/plain; charset=utf-8"))
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, str)
		return
	}
	// A text type is for a string: another value is JSON, as its bytes are.
	ct := t.ContentType
	if strings.HasPrefix(ct, "text/") {
		ct = ""
	}
	w.Header().Set("Content-Type", cmp(ct, "application/json"))
	w.WriteHeader(http.StatusOK)
	if out == nil {
		out = json.RawMessage("null")
	}
	w.Write(out)
}

func cmp(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func jsonOrEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

// awaitRun waits until the run id ended (ok, failed or cancelled) and
// returns its record: woken by the run when this server runs it, else
// reading the state.
func (s *Server) awaitRun(ctx context.Context, id string) (*state.Run, error) {
	for {
		if lr := s.liveRun(id); lr != nil {
			if _, done, changed := lr.since(math.MaxInt64); !done {
				select {
				case <-changed:
					continue
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
		}
		run, err := s.store.Run(id)
		if err == nil && ended(run.Status) {
			return run, nil
		}
		if err != nil && !errors.Is(err, state.ErrRunNotFound) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(awaitPoll):
		}
	}
}

// awaitPoll is how often awaitRun reads the state for a run another
// server runs.
const awaitPoll = 50 * time.Millisecond

// requestBody is a request's body as request.body: JSON parsed, a form's
// fields, else the text (null when empty). A form GitHub delivers (its
// webhooks' default content type) carries the JSON in its payload field:
// that JSON is the body, as with application/json.
func requestBody(wh *lang.Webhook, contentType string, body []byte) (cty.Value, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case len(body) == 0:
		return cty.NullVal(cty.DynamicPseudoType), nil
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		v, err := jsonval.Decode(body)
		if err != nil {
			return cty.NilVal, fmt.Errorf("the body is not JSON: %w", err)
		}
		return v, nil
	case mt == "application/x-www-form-urlencoded":
		q, err := url.ParseQuery(string(body))
		if err != nil {
			return cty.NilVal, fmt.Errorf("the body is not a form: %w", err)
		}
		if payload := q["payload"]; wh.Verify == lang.VerifyGitHub && len(q) == 1 && len(payload) == 1 {
			v, err := jsonval.Decode([]byte(payload[0]))
			if err != nil {
				return cty.NilVal, fmt.Errorf("the form's payload is not JSON: %w", err)
			}
			return v, nil
		}
		return queryMap(q), nil
	}
	return cty.StringVal(string(body)), nil
}

// headerMap is request.headers: lower-cased names, the values of a
// repeated header joined by ", ".
func headerMap(h http.Header) cty.Value {
	m := make(map[string]cty.Value, len(h))
	for k, vs := range h {
		m[strings.ToLower(k)] = cty.StringVal(strings.Join(vs, ", "))
	}
	if len(m) == 0 {
		return cty.MapValEmpty(cty.String)
	}
	return cty.MapVal(m)
}

// queryMap is request.query (or a form's fields): the values of a
// repeated field joined by ",".
func queryMap(q url.Values) cty.Value {
	m := make(map[string]cty.Value, len(q))
	for k, vs := range q {
		m[k] = cty.StringVal(strings.Join(vs, ","))
	}
	if len(m) == 0 {
		return cty.MapValEmpty(cty.String)
	}
	return cty.MapVal(m)
}
