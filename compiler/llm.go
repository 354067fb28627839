package compiler

import (
	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// resolveProvider finds the provider an llm step names (provider =
// provider.NAME), and checks that a step of the llm built-in gives the
// model something to answer.
func (c *compilation) resolveProvider(s *Step) hcl.Diagnostics {
	if s.Block != nil && s.Block.Builtin() && s.Block.Name == "llm" && s.Arg("prompt") == nil && s.Arg("messages") == nil {
		return lang.Error(s.DeclRange, "Missing prompt",
			"Step %q uses the llm block, which needs a prompt, messages, or both: give it prompt = \"...\" or messages = [{ role = \"user\", content = \"...\" }].", s.Name)
	}
	if s.ProviderRef == nil {
		return nil
	}
	if s.Block != nil && !s.Block.IsLLM() && s.Block.Reaches() != blocks.RemoteModel && !blocks.EmbedsQuery(s.Block) {
		return lang.Error(s.ProviderRange, "Provider on a step that is not llm",
			"Step %q uses block %q; only steps that call a model (llm, embed, vector_search for its query) name a provider.", s.Name, s.Block.Name)
	}
	name := s.ProviderRef[1].(hcl.TraverseAttr).Name
	p := c.prog.ProvidersByName[name]
	if p == nil {
		return unknownProvider(c.prog, name, s.ProviderRef.SourceRange())
	}
	s.Provider = p
	return nil
}

// resolveProviderKeys checks that each provider's api_key names a
// secret of the flow.
func (c *compilation) resolveProviderKeys() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, p := range c.prog.Providers {
		name := p.APIKeySecret()
		if name == "" || c.prog.SecretsByName[name] != nil {
			continue
		}
		ref, _ := lang.ParseRef(p.APIKey)
		diags = append(diags, lang.Error(ref.NameRange(), "Unknown secret",
			"There is no secret named %q in this flow.%s", name, lang.Suggest(name, lang.SortedKeys(c.prog.SecretsByName)))...)
	}
	return diags
}

// unknownProvider is the error of a name that is no provider's.
func unknownProvider(p *Program, name string, rng hcl.Range) hcl.Diagnostics {
	return lang.Error(rng, "Unknown provider",
		"Flow %q declares no provider named %q; its providers are %s. Declare one with provider %q { base_url = \"...\" }.%s",
		p.Flow.Name, name, listOrNone(lang.SortedKeys(p.ProvidersByName)), name, lang.Suggest(name, lang.SortedKeys(p.ProvidersByName)))
}

// IsLLM reports whether the step calls a model: it uses the llm
// built-in or a block with runtime "llm".
func (s *Step) IsLLM() bool { return s.Block != nil && s.Block.IsLLM() }

// Model is the model an llm step names: its model argument when that is
// a literal, its block's model; "" when it names none (the provider's
// default, FLOWCTL_MODEL). known is false when the argument is an
// expression whose value only the run knows.
func (s *Step) Model() (model string, known bool) {
	if s.Block == nil {
		return "", true
	}
	if s.Block.Def != nil {
		return s.Block.Def.Model, true
	}
	a := s.Arg("model")
	if a == nil {
		return "", true
	}
	if len(a.Expr.Variables()) > 0 {
		return "", false
	}
	v, d := a.Expr.Value(nil)
	if d.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return "", v.IsKnown() && v.IsNull()
	}
	return v.AsString(), true
}
