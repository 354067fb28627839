package runtime

import (
	"fmt"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
)

// provider is the model server an llm step names, its key read from the
// run's secret; nil for a step that names none (the environment's).
func (r *run) provider(s *compiler.Step) (*blocks.Provider, error) {
	p := s.Provider
	if p == nil {
		return nil, nil
	}
	out := &blocks.Provider{Name: p.Name, BaseURL: p.BaseURL, RPM: p.RPM, TPM: p.TPM, Concurrency: p.Concurrency, Prices: p.Prices, Stream: p.Stream}
	if name := p.APIKeySecret(); name != "" {
		v, ok := r.secrets[name]
		if !ok {
			return nil, fmt.Errorf("the api_key of provider %q is secret %q, which has no value in this run", p.Name, name)
		}
		v, _ = v.Unmark()
		if !v.IsKnown() || v.IsNull() {
			return nil, fmt.Errorf("the api_key of provider %q is secret %q, which has no value in this run", p.Name, name)
		}
		out.APIKey = v.AsString()
	}
	return out, nil
}
