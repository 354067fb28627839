package lang

import (
	"math/big"
	"net/url"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// RootProvider is the root of provider.NAME, which only an llm step's
// provider argument takes: a provider is not a value.
const RootProvider = "provider"

// Provider is a `provider "NAME"` block of a flow file: an
// OpenAI-compatible server that llm steps name with provider =
// provider.NAME, with its own key and limits. Everything but the key is
// a literal, fixed when the file is read: a provider's limits are shared
// by every run of a process that names the same server, key and limits.
type Provider struct {
	Name      string
	NameRange hcl.Range
	DeclRange hcl.Range
	// BaseURL is the server's http or https URL, such as
	// http://127.0.0.1:11434/v1.
	BaseURL      string
	BaseURLRange hcl.Range
	// APIKey is the secret.NAME the key is read from; nil: no key (a
	// local server).
	APIKey      hcl.Traversal
	APIKeyRange hcl.Range
	// RPM and TPM are requests and tokens (prompt and completion) per
	// minute; Concurrency the requests in flight at once. 0: no limit
	// (Concurrency: the default of the environment's provider).
	RPM, TPM, Concurrency int
	// Prices are USD per million tokens by model; nil when none are
	// declared.
	Prices map[string]Price
	// Stream says whether its steps stream their replies by default;
	// nil: they do (docs/llm.md, "Streaming").
	Stream      *bool
	Description string
}

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input, Output float64
}

var providerSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "base_url", Required: true}, {Name: "api_key"}, {Name: "rpm"}, {Name: "tpm"},
		{Name: "concurrency"}, {Name: "prices"}, {Name: "stream"}, {Name: "description"},
	},
}

// ProviderArguments are the arguments of a provider block, for the
// language server and the docs' tests.
func ProviderArguments() []string {
	var out []string
	for _, a := range providerSchema.Attributes {
		out = append(out, a.Name)
	}
	return out
}

func decodeProviderBlock(b *hcl.Block) (*Provider, hcl.Diagnostics) {
	p := &Provider{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	diags := checkName("provider", p.Name, p.NameRange)
	content, d := b.Body.Content(providerSchema)
	diags = append(diags, d...)
	attrs := content.Attributes
	if a, ok := attrs["base_url"]; ok {
		p.BaseURLRange = a.Expr.Range()
		p.BaseURL, d = stringAttr(a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if u, err := url.Parse(p.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				diags = append(diags, Error(p.BaseURLRange, "Invalid base_url",
					"The base_url of a provider is the http or https URL of an OpenAI-compatible server, such as \"http://127.0.0.1:11434/v1\"; got %s.", quote(p.BaseURL))...)
			}
		}
	}
	if a, ok := attrs["api_key"]; ok {
		p.APIKeyRange = a.Expr.Range()
		p.APIKey, d = decodeAPIKey(a)
		diags = append(diags, d...)
	}
	for _, lim := range []struct {
		name string
		to   *int
	}{{"rpm", &p.RPM}, {"tpm", &p.TPM}, {"concurrency", &p.Concurrency}} {
		if a, ok := attrs[lim.name]; ok {
			*lim.to, d = intAttr(a, 1)
			diags = append(diags, d...)
		}
	}
	if a, ok := attrs["prices"]; ok {
		p.Prices, d = decodePrices(a)
		diags = append(diags, d...)
	}
	if a, ok := attrs["stream"]; ok {
		stream, d := boolAttr(a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			p.Stream = &stream
		}
	}
	if a, ok := attrs["description"]; ok {
		p.Description, d = stringAttr(a)
		diags = append(diags, d...)
	}
	return p, diags
}

// decodeAPIKey reads an api_key: a reference to one of the flow's
// secrets, never the key itself, which would then be in the file.
func decodeAPIKey(a *hcl.Attribute) (hcl.Traversal, hcl.Diagnostics) {
	tr, d := hcl.AbsTraversalForExpr(a.Expr)
	if !d.HasErrors() && tr.RootName() == RootSecret && len(tr) == 2 {
		if _, ok := tr[1].(hcl.TraverseAttr); ok {
			return tr, nil
		}
	}
	if _, lit := a.Expr.(*hclsyntax.TemplateExpr); lit || len(a.Expr.Variables()) == 0 {
		return nil, Error(a.Expr.Range(), "Literal API key",
			"The api_key of a provider is a reference to a secret, such as api_key = secret.openai_key, never the key itself: a key written in the file would be in every copy of it. Declare secret \"openai_key\" { env = \"OPENAI_API_KEY\" } and refer to it.")
	}
	return nil, Error(a.Expr.Range(), "Invalid api_key",
		"The api_key of a provider is a reference to one of the flow's secrets, such as api_key = secret.openai_key, with nothing around it.")
}

// priceType is what prices converts to: a price per model.
var priceType = cty.Map(cty.Object(map[string]cty.Type{"input": cty.Number, "output": cty.Number}))

func decodePrices(a *hcl.Attribute) (map[string]Price, hcl.Diagnostics) {
	v, diags := constOf(a, priceType, "prices argument, a map of models to { input = USD, output = USD } per million tokens,")
	if diags.HasErrors() {
		return nil, diags
	}
	out := map[string]Price{}
	models := v.AsValueMap()
	names := make([]string, 0, len(models))
	for m := range models {
		names = append(names, m)
	}
	sort.Strings(names)
	for _, m := range names {
		pv := models[m]
		if pv.IsNull() {
			return nil, Error(ObjectItemRange(a.Expr, m, false), "Invalid prices", "The price of model %s must not be null.", quote(m))
		}
		var pr Price
		for _, side := range []struct {
			name string
			to   *float64
		}{{"input", &pr.Input}, {"output", &pr.Output}} {
			n := pv.GetAttr(side.name)
			if n.IsNull() {
				return nil, Error(ObjectItemRange(a.Expr, m, false), "Invalid prices", "The %s price of model %s must not be null.", side.name, quote(m))
			}
			f, _ := n.AsBigFloat().Float64()
			if n.AsBigFloat().Sign() < 0 || n.AsBigFloat().Cmp(big.NewFloat(1e6)) > 0 {
				return nil, Error(ObjectItemRange(a.Expr, m, false), "Invalid prices",
					"The %s price of model %s is USD per million tokens, from 0 to 1000000; got %s.", side.name, quote(m), n.AsBigFloat().Text('g', -1))
			}
			*side.to = f
		}
		out[m] = pr
	}
	return out, nil
}

// APIKeySecret is the name of the secret the key is read from; "" for
// none.
func (p *Provider) APIKeySecret() string {
	if len(p.APIKey) < 2 {
		return ""
	}
	return p.APIKey[1].(hcl.TraverseAttr).Name
}

// Fingerprint identifies the provider for the cache keys of the steps
// that name it: its server (not its key or limits, which do not change a
// reply).
func (p *Provider) Fingerprint() string { return "provider " + p.BaseURL }
