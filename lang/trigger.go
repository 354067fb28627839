package lang

import (
	"path"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Trigger is a `trigger "NAME"` block of a flow file: flowctl serve starts
// a run of the flow when a webhook is delivered (Webhook) or when a run of
// another flow ends (OnRun). Exactly one of the two is set.
type Trigger struct {
	Name      string
	NameRange hcl.Range
	DeclRange hcl.Range
	Webhook   *Webhook
	OnRun     *OnRun
	// Inputs is the object of the flow's input values, read from request
	// (a webhook's) or run (an on_run's); nil for none.
	Inputs hcl.Expression
	// When, when set, is a condition: false starts no run (204 for a
	// webhook).
	When hcl.Expression
	// Respond is what a webhook's caller gets: RespondAccepted,
	// RespondOutputs, or RespondOutput with Output naming it.
	Respond      string
	Output       string
	RespondRange hcl.Range
	// ContentType is the Content-Type of a respond = output.NAME answer
	// ("" for the default: text for a string, else JSON).
	ContentType string
	// Timeout bounds the wait of respond = outputs (and output.NAME).
	Timeout time.Duration
	// Priority orders the runs it starts in the queue of the flow's
	// concurrency key (PriorityAttr): higher first, 0 by default.
	Priority int
}

// What a webhook trigger answers (Trigger.Respond).
const (
	RespondAccepted = "accepted"
	RespondOutputs  = "outputs"
	RespondOutput   = "output"
)

// Verifications of a webhook (Webhook.Verify).
const (
	VerifyGitHub   = "github"
	VerifyStripe   = "stripe"
	VerifyStandard = "standard"
	VerifyHMAC     = "hmac"
	VerifyBasic    = "basic"
	VerifyHeader   = "header"
	VerifyNone     = "none"
)

// Verifications are the verify values, in the docs' order.
var Verifications = []string{VerifyGitHub, VerifyStripe, VerifyStandard, VerifyHMAC, VerifyBasic, VerifyHeader, VerifyNone}

// Webhook is the webhook block of a trigger.
type Webhook struct {
	DeclRange hcl.Range
	Path      string // starts with "/"
	PathRange hcl.Range
	Method    string // upper case; POST by default
	Verify    string // one of Verifications
	// Secret names the secret of the signatures (SecretRange where it is
	// named); "" for verify = "none".
	Secret      string
	SecretRange hcl.Range
	// Tolerance is how far a signed timestamp (stripe, standard) may be
	// from now.
	Tolerance time.Duration
	// Header names the header of an hmac signature, or of the value
	// verify = "header" compares with the secret. HeaderSecret, for
	// verify = "header" only, names instead a secret that holds the
	// header's name (header = secret.NAME).
	Header       string
	HeaderSecret string
	HeaderRange  hcl.Range
	// MaxBody bounds the body, in bytes.
	MaxBody int64
	// BodySchema is the shape of the body (cty.DynamicPseudoType when
	// none is declared). BodySchemaFile, when set, is an expression of
	// the text of a JSON Schema (file("push.schema.json")), which the
	// compiler reads into BodySchema.
	BodySchema      cty.Type
	BodySchemaFile  hcl.Expression
	BodySchemaRange hcl.Range
}

// Defaults of a trigger.
const (
	DefaultWebhookMaxBody   = 1 << 20
	DefaultWebhookTolerance = 5 * time.Minute
	DefaultTriggerTimeout   = 30 * time.Second
)

// OnRun is the on_run block of a trigger: the ends of runs of Flow with
// one of Status start the trigger's flow.
type OnRun struct {
	DeclRange   hcl.Range
	Flow        string
	FlowRange   hcl.Range
	Status      []string // ok by default
	StatusRange hcl.Range
}

// RunStatuses are the statuses a run ends with, which on_run may list.
var RunStatuses = []string{"ok", "failed", "cancelled"}

var triggerSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "inputs"}, {Name: "when"}, {Name: "respond"}, {Name: "content_type"}, {Name: "timeout"},
		{Name: "priority"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "webhook"}, {Type: "on_run"}},
}

var webhookSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "path", Required: true}, {Name: "method"}, {Name: "verify", Required: true}, {Name: "secret"},
		{Name: "tolerance"}, {Name: "header"}, {Name: "max_body"}, {Name: "body_schema"},
	},
}

var onRunSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "flow", Required: true}, {Name: "status"}},
}

// TriggerAttributes are the attributes and blocks of a trigger block and
// of its webhook and on_run blocks, for the language server.
func TriggerAttributes() (trigger, webhook, onRun []string) {
	names := func(s *hcl.BodySchema) []string {
		var out []string
		for _, a := range s.Attributes {
			out = append(out, a.Name)
		}
		for _, b := range s.Blocks {
			out = append(out, b.Type)
		}
		return out
	}
	return names(triggerSchema), names(webhookSchema), names(onRunSchema)
}

// BodyType is the type of a webhook's request.body: body_schema's, else
// any.
func (t *Trigger) BodyType() cty.Type {
	if t.Webhook == nil {
		return cty.DynamicPseudoType
	}
	return t.Webhook.BodySchema
}

func decodeTriggerBlock(b *hcl.Block) (*Trigger, hcl.Diagnostics) {
	t := &Trigger{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange,
		Respond: RespondAccepted, Timeout: DefaultTriggerTimeout}
	diags := checkName("trigger", t.Name, t.NameRange)
	content, d := b.Body.Content(triggerSchema)
	diags = append(diags, d...)
	for _, blk := range content.Blocks {
		if t.Webhook != nil || t.OnRun != nil {
			diags = append(diags, Error(blk.DefRange, "Duplicate trigger source",
				"Trigger %q has more than one webhook or on_run block; a trigger has exactly one.", t.Name)...)
			continue
		}
		if blk.Type == "webhook" {
			t.Webhook, d = decodeWebhook(blk, t.Name)
		} else {
			t.OnRun, d = decodeOnRun(blk, t.Name)
		}
		diags = append(diags, d...)
	}
	if t.Webhook == nil && t.OnRun == nil && !diags.HasErrors() {
		diags = append(diags, Error(t.DeclRange, "Missing trigger source",
			"Trigger %q needs a webhook block (a request starts the run) or an on_run block (the end of another flow's run starts it).", t.Name)...)
	}
	for _, a := range sortedAttributes(content.Attributes) {
		switch a.Name {
		case "inputs":
			t.Inputs = a.Expr
		case "when":
			t.When = a.Expr
		case "respond":
			t.RespondRange = a.Expr.Range()
			diags = append(diags, t.decodeRespond(a)...)
		case "content_type":
			t.ContentType, d = stringAttr(a)
			diags = append(diags, d...)
		case "timeout":
			dur, d := durationAttr(a)
			diags = append(diags, d...)
			t.Timeout = dur.Duration
		case "priority":
			t.Priority, d = PriorityAttr(a)
			diags = append(diags, d...)
		}
		if (a.Name == "respond" || a.Name == "content_type" || a.Name == "timeout") && t.OnRun != nil {
			diags = append(diags, Error(a.NameRange, "Not for on_run",
				"%s is what a webhook's caller gets; trigger %q starts from the end of a run, which has no caller.", a.Name, t.Name)...)
		}
	}
	if a, ok := content.Attributes["content_type"]; ok && t.Respond != RespondOutput {
		diags = append(diags, Error(a.NameRange, "content_type without output",
			"content_type is the type of the answer when respond = output.NAME sends an output as the whole body.")...)
	}
	return t, diags
}

func (t *Trigger) decodeRespond(a *hcl.Attribute) hcl.Diagnostics {
	if tr, d := hcl.AbsTraversalForExpr(a.Expr); !d.HasErrors() && len(tr) == 2 && tr.RootName() == "output" {
		if at, ok := tr[1].(hcl.TraverseAttr); ok {
			t.Respond, t.Output = RespondOutput, at.Name
			return nil
		}
	}
	s, diags := stringAttr(a)
	if diags.HasErrors() || s == RespondAccepted || s == RespondOutputs {
		t.Respond = s
		return diags
	}
	return Error(a.Expr.Range(), "Invalid respond",
		"respond is \"accepted\" (202 with the run's ID), \"outputs\" (200 with the run's outputs) or output.NAME (that output as the whole body), not %s.", quote(s))
}

func decodeWebhook(b *hcl.Block, trigger string) (*Webhook, hcl.Diagnostics) {
	w := &Webhook{DeclRange: b.DefRange, Method: "POST", Tolerance: DefaultWebhookTolerance,
		MaxBody: DefaultWebhookMaxBody, BodySchema: cty.DynamicPseudoType}
	content, diags := b.Body.Content(webhookSchema)
	for _, a := range sortedAttributes(content.Attributes) {
		var d hcl.Diagnostics
		switch a.Name {
		case "path":
			w.PathRange = a.Expr.Range()
			w.Path, d = stringAttr(a)
			// A path with "//", "." or ".." is one that clients send
			// cleaned: the webhook would never be reached.
			if !d.HasErrors() && (!strings.HasPrefix(w.Path, "/") || strings.ContainsAny(w.Path, "{}? #%") || ReservedPath(w.Path) ||
				path.Clean(w.Path) != strings.TrimSuffix(w.Path, "/")) {
				d = Error(a.Expr.Range(), "Invalid webhook path",
					"The path %s of trigger %q is served under serve's address: it starts with \"/\", is none of serve's own (/, /v1/..., /flows..., /runs/..., /evals, /ui/..., /healthz, /readyz, /metrics, /favicon.ico), and has no spaces, braces, \"?\", \"#\", \"%%\", \"//\", \".\" or \"..\" segments, such as \"/hooks/github\".", quote(w.Path), trigger)
			}
		case "method":
			w.Method, d = stringAttr(a)
			w.Method = strings.ToUpper(w.Method)
			if !d.HasErrors() && !slices.Contains([]string{"POST", "PUT", "PATCH", "GET"}, w.Method) {
				d = Error(a.Expr.Range(), "Invalid method", "A webhook's method is POST (the default), PUT, PATCH or GET, not %s.", quote(w.Method))
			}
		case "verify":
			w.Verify, d = stringAttr(a)
			if !d.HasErrors() && !slices.Contains(Verifications, w.Verify) {
				d = Error(a.Expr.Range(), "Invalid verify",
					"verify is one of %s, not %s; verify = \"none\" accepts every request.", strings.Join(quoteAll(Verifications), ", "), quote(w.Verify))
			}
		case "secret":
			w.SecretRange = a.Expr.Range()
			tr, td := hcl.AbsTraversalForExpr(a.Expr)
			if td.HasErrors() || len(tr) != 2 || tr.RootName() != "secret" {
				d = Error(a.Expr.Range(), "Invalid secret", "A webhook's secret names a secret of the flow, such as secret.github_hook.")
				break
			}
			if at, ok := tr[1].(hcl.TraverseAttr); ok {
				w.Secret = at.Name
			}
		case "tolerance":
			dur, dd := durationAttr(a)
			w.Tolerance, d = dur.Duration, dd
			if !d.HasErrors() && w.Tolerance < time.Second {
				d = Error(a.Expr.Range(), "Invalid tolerance",
					"A signed timestamp is in whole seconds: tolerance is at least \"1s\" (a shorter one refuses nearly every delivery), such as \"5m\".")
			}
		case "header":
			w.HeaderRange = a.Expr.Range()
			if tr, td := hcl.AbsTraversalForExpr(a.Expr); !td.HasErrors() && len(tr) == 2 && tr.RootName() == "secret" {
				if at, ok := tr[1].(hcl.TraverseAttr); ok {
					w.HeaderSecret = at.Name
					break
				}
			}
			w.Header, d = stringAttr(a)
			if !d.HasErrors() && w.Header == "" {
				d = Error(a.Expr.Range(), "Invalid header", "header names the request header of the signature, such as \"X-Signature\".")
			}
		case "max_body":
			v, vd := a.Expr.Value(nil)
			d = vd
			if !vd.HasErrors() {
				var n int64
				if v.IsNull() || !v.IsKnown() || v.Type() != cty.Number || !v.AsBigFloat().IsInt() {
					d = Error(a.Expr.Range(), "Invalid max_body", "max_body is a whole number of bytes, such as 1048576.")
				} else if n, _ = v.AsBigFloat().Int64(); n <= 0 {
					d = Error(a.Expr.Range(), "Invalid max_body", "max_body is a positive number of bytes.")
				}
				w.MaxBody = n
			}
		case "body_schema":
			w.BodySchemaRange = a.Expr.Range()
			switch a.Expr.(type) {
			case *hclsyntax.FunctionCallExpr, *hclsyntax.TemplateExpr, *hclsyntax.TemplateWrapExpr:
				w.BodySchemaFile = a.Expr
			default:
				w.BodySchema, d = bodySchemaType(a.Expr)
			}
		}
		diags = append(diags, d...)
	}
	if diags.HasErrors() {
		return w, diags
	}
	switch {
	case w.Verify == VerifyNone && w.Secret != "":
		diags = append(diags, Error(w.SecretRange, "Secret without verification",
			"Trigger %q says verify = \"none\", so its secret would not be used; verify it, or drop the secret.", trigger)...)
	case w.Verify != VerifyNone && w.Secret == "":
		diags = append(diags, Error(b.DefRange, "Missing secret",
			"Trigger %q verifies with %s, which needs a secret: secret = secret.NAME.", trigger, w.Verify)...)
	}
	if a, ok := content.Attributes["header"]; ok && w.Verify != VerifyHMAC && w.Verify != VerifyHeader {
		diags = append(diags, Error(a.NameRange, "header without hmac", "header names the signature's header for verify = \"hmac\", or the compared header for verify = \"header\", only.")...)
	}
	switch {
	case w.Verify == VerifyHMAC && w.HeaderSecret != "":
		diags = append(diags, Error(w.HeaderRange, "Invalid header",
			"Trigger %q verifies with hmac: header is the literal name of the signature's header, such as header = \"X-Signature\"; a secret may name the header of verify = \"header\" only.", trigger)...)
	case w.Verify == VerifyHMAC && w.Header == "":
		diags = append(diags, Error(b.DefRange, "Missing header",
			"Trigger %q verifies with hmac: header names the request header that carries the signature, such as header = \"X-Signature\".", trigger)...)
	case w.Verify == VerifyHeader && w.Header == "" && w.HeaderSecret == "":
		diags = append(diags, Error(b.DefRange, "Missing header",
			"Trigger %q verifies with header: header names the request header whose value must equal the secret, such as header = \"X-Api-Key\" (or a secret that holds the name, header = secret.NAME).", trigger)...)
	}
	if a, ok := content.Attributes["tolerance"]; ok && w.Verify != VerifyStripe && w.Verify != VerifyStandard {
		diags = append(diags, Error(a.NameRange, "tolerance without a signed timestamp",
			"tolerance bounds the signed timestamps of verify = \"stripe\" and \"standard\" only.")...)
	}
	return w, diags
}

// ReservedPath reports whether a path is one of serve's own: the API's,
// the dashboard's, the probes' (server's TestWebhookPathsReserved checks
// every route against it).
func ReservedPath(p string) bool {
	switch p {
	case "/", "/healthz", "/readyz", "/metrics", "/favicon.ico", "/flows", "/v1", "/ui", "/evals":
		return true
	}
	for _, prefix := range []string{"/v1/", "/flows/", "/runs/", "/ui/"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// bodySchemaType reads body_schema: an object whose attributes are type
// expressions (string, number, list(string), ...) or objects of them.
func bodySchemaType(expr hcl.Expression) (cty.Type, hcl.Diagnostics) {
	obj, ok := expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		ty, diags := typeexpr.TypeConstraint(expr)
		return ty, diags
	}
	attrs := map[string]cty.Type{}
	var diags hcl.Diagnostics
	for _, item := range obj.Items {
		key, d := item.KeyExpr.Value(nil)
		if d.HasErrors() || key.Type() != cty.String || key.IsNull() {
			if k := hcl.ExprAsKeyword(item.KeyExpr); k != "" {
				key = cty.StringVal(k)
			} else {
				diags = append(diags, Error(item.KeyExpr.Range(), "Invalid body_schema", "A body_schema's keys are the body's field names.")...)
				continue
			}
		}
		ty, d := bodySchemaType(item.ValueExpr)
		diags = append(diags, d...)
		attrs[key.AsString()] = ty
	}
	return cty.Object(attrs), diags
}

func decodeOnRun(b *hcl.Block, trigger string) (*OnRun, hcl.Diagnostics) {
	o := &OnRun{DeclRange: b.DefRange, Status: []string{"ok"}}
	content, diags := b.Body.Content(onRunSchema)
	if a, ok := content.Attributes["flow"]; ok {
		var d hcl.Diagnostics
		o.FlowRange = a.Expr.Range()
		o.Flow, d = stringAttr(a)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["status"]; ok {
		o.StatusRange = a.Expr.Range()
		v, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		if d.HasErrors() {
			return o, diags
		}
		if v.IsNull() || !v.IsWhollyKnown() || !(v.Type().IsListType() || v.Type().IsTupleType()) || v.LengthInt() == 0 {
			return o, append(diags, Error(a.Expr.Range(), "Invalid status", "status lists the statuses of the runs that start trigger %q, such as [\"ok\"].", trigger)...)
		}
		o.Status = nil
		for _, s := range v.AsValueSlice() {
			if s.Type() != cty.String || !slices.Contains(RunStatuses, s.AsString()) {
				return o, append(diags, Error(a.Expr.Range(), "Invalid status", "A run ends %s; status lists some of these.", strings.Join(quoteAll(RunStatuses), ", "))...)
			}
			o.Status = append(o.Status, s.AsString())
		}
	}
	return o, diags
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quote(s)
	}
	return out
}
