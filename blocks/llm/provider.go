package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/flowctl/flowctl/blocks"
)

// The limits of the providers flows declare are shared by every run of
// the process (serve, mcp, worker run many at once): one set per
// provider identity, its server, key and limits. Two flows that declare
// the same server with the same key and limits share one set, whatever
// they call it; the same server with other limits is another set.
var providerLimits = struct {
	mu sync.Mutex
	m  map[string]*limits
}{m: map[string]*limits{}}

// providerIdentity identifies a provider's limits: its server, a hash of
// its key (the key itself is not kept twice) and its limits.
func providerIdentity(p *blocks.Provider) string {
	sum := sha256.Sum256([]byte(p.APIKey))
	return fmt.Sprintf("%s\x00%s\x00rpm=%d tpm=%d concurrency=%d", p.BaseURL, hex.EncodeToString(sum[:]), p.RPM, p.TPM, concurrencyOf(p))
}

func concurrencyOf(p *blocks.Provider) int {
	if p.Concurrency > 0 {
		return p.Concurrency
	}
	return DefaultConcurrency
}

// sharedLimits returns the process's limits of provider p.
func sharedLimits(p *blocks.Provider) *limits {
	id := providerIdentity(p)
	providerLimits.mu.Lock()
	defer providerLimits.mu.Unlock()
	l := providerLimits.m[id]
	if l == nil {
		l = newLimits(concurrencyOf(p), p.RPM, p.TPM)
		providerLimits.m[id] = l
	}
	return l
}

// providerNames are what messages call a provider's settings.
func providerNames(name string) settingNames {
	at := fmt.Sprintf(" of provider %q", name)
	return settingNames{
		baseURL: "the base_url" + at, apiKey: "the api_key" + at, rpm: "the rpm" + at,
		tpm: "the tpm" + at, concurrency: "the concurrency" + at, keyMark: "api_key of provider " + name,
	}
}

// transportFor is the transport of a call: to the provider its step
// names, within the limits the process shares for it, or the
// environment's.
func (e *Executor) transportFor(call *blocks.Call) (*transport, error) {
	if call == nil || call.Provider == nil {
		if e.t == nil {
			return nil, errNotConfigured
		}
		return e.t, nil
	}
	p := call.Provider
	key := p.Name + "\x00" + providerIdentity(p)
	if t, ok := e.providers.Load(key); ok {
		return t.(*transport), nil
	}
	t := newTransportTo(e.cfg, p.BaseURL, p.APIKey, sharedLimits(p), providerNames(p.Name), e.log)
	actual, _ := e.providers.LoadOrStore(key, t)
	return actual.(*transport), nil
}
