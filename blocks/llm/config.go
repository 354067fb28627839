package llm

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
)

// Defaults of Config.
const (
	DefaultModel       = "gpt-4o-mini"
	DefaultConcurrency = 4
	DefaultMaxRetries  = 4
)

// The environment variables ConfigFromEnv reads (docs/design.md, "Language models").
const (
	EnvAPIKey      = "OPENAI_API_KEY"
	EnvBaseURL     = "OPENAI_BASE_URL"
	EnvModel       = "FLOWCTL_MODEL"
	EnvConcurrency = "FLOWCTL_LLM_CONCURRENCY"
	EnvRPM         = "FLOWCTL_LLM_RPM"
	// EnvStream, false, keeps the environment's provider from streaming
	// replies; unset or true, steps stream unless they say otherwise.
	EnvStream = "FLOWCTL_LLM_STREAM"

	// EnvEmbeddingsModel names the embeddings model of registry search;
	// unset, search uses text ranking alone.
	EnvEmbeddingsModel = "FLOWCTL_EMBEDDINGS_MODEL"
)

// Config configures an Executor. The zero value of a field means its
// default.
type Config struct {
	APIKey  string // OPENAI_API_KEY; may be empty for a local server
	BaseURL string // OPENAI_BASE_URL; empty: https://api.openai.com/v1
	Model   string // FLOWCTL_MODEL: the model of steps that name none; empty: DefaultModel

	// Concurrency is how many requests may be in flight at once, shared by
	// every step the Executor runs (FLOWCTL_LLM_CONCURRENCY); 0 means
	// DefaultConcurrency.
	Concurrency int
	// RPM is how many requests may start per minute, shared by every step
	// (FLOWCTL_LLM_RPM); 0 means no limit. Retries count too.
	RPM int

	// EmbeddingsModel is the model that embeds blocks and queries for
	// registry search (FLOWCTL_EMBEDDINGS_MODEL); empty: no embeddings.
	EmbeddingsModel string

	// LogPrompts, when set, receives one JSON line per round trip with the
	// server (--log-prompts).
	LogPrompts io.Writer
	// HTTPClient sends the requests; nil means a client of the package's
	// own.
	HTTPClient *http.Client
	// NoStream keeps the environment's provider's steps from streaming,
	// unless they ask to (FLOWCTL_LLM_STREAM=false).
	NoStream bool
	// Prices are the environment's provider's prices by model, in USD per
	// million tokens (the FLOWCTL_PRICES file); nil: none.
	Prices map[string]lang.Price
	// MaxRetries is how many times one request is retried after a 429, a
	// 5xx, a timeout or a reset connection; 0 means DefaultMaxRetries and a
	// negative number no retries.
	MaxRetries int
}

// ConfigFromEnv reads the configuration from the environment through
// lookup (os.LookupEnv in flowctl). Empty variables count as unset. It
// does not require an API key: a step that calls the model reports that
// when it runs, so that commands which never call a model do not need one.
func ConfigFromEnv(lookup func(string) (string, bool)) (Config, error) {
	get := func(name string) string {
		v, _ := lookup(name)
		return strings.TrimSpace(v)
	}
	cfg := Config{
		APIKey:  get(EnvAPIKey),
		BaseURL: get(EnvBaseURL),
		Model:   get(EnvModel),

		EmbeddingsModel: get(EnvEmbeddingsModel),
	}
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Config{}, fmt.Errorf("%s must be an http or https URL such as http://localhost:11434/v1, not %q", EnvBaseURL, cfg.BaseURL)
		}
	}
	var err error
	if cfg.Concurrency, err = envInt(get, EnvConcurrency, DefaultConcurrency, 1, "at least 1"); err != nil {
		return Config{}, err
	}
	if cfg.RPM, err = envInt(get, EnvRPM, 0, 0, "0 (no limit) or more"); err != nil {
		return Config{}, err
	}
	if v := get(EnvStream); v != "" {
		on, perr := strconv.ParseBool(v)
		if perr != nil {
			return Config{}, fmt.Errorf("%s must be true or false, not %q", EnvStream, v)
		}
		cfg.NoStream = !on
	}
	if path := get(blocks.EnvPrices); path != "" {
		if cfg.Prices, err = ReadPrices(path); err != nil {
			return Config{}, err
		}
	}
	cfg.MaxRetries = DefaultMaxRetries
	return cfg, nil
}

func envInt(get func(string) string, name string, def, lowest int, want string) (int, error) {
	s := get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lowest {
		return 0, fmt.Errorf("%s must be a whole number, %s; got %q", name, want, s)
	}
	return n, nil
}

// withDefaults fills in the defaults of zero fields.
func (c Config) withDefaults() Config {
	if c.Model == "" {
		c.Model = DefaultModel
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.RPM < 0 {
		c.RPM = 0
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return c
}

// configured reports whether there is a server to talk to: an API key for
// OpenAI, or a base URL for another server (which may need no key).
func (c Config) configured() bool { return c.APIKey != "" || c.BaseURL != "" }

// errNotConfigured is what a call says when there is no server to call.
var errNotConfigured = fmt.Errorf("no model server is configured: set %s, or %s for a local OpenAI-compatible server", EnvAPIKey, EnvBaseURL)
