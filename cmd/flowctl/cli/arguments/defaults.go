package arguments

import (
	"strings"
	"time"

	"github.com/flowctl/flowctl/lang"
)

// The defaults and environment variables the flags' help names. They are
// those of the packages that act on them (server, runtime/state,
// runtime/temporal, thinker, …), which this package does not import;
// defaults_test.go checks that they agree.
const (
	SandboxIsolated  = lang.SandboxIsolated
	SandboxInProcess = lang.SandboxInProcess

	EngineLocal    = "local"
	EngineTemporal = "temporal"
	EnvEngine      = "FLOWCTL_ENGINE"
	// TemporalNamespaceFlag is the flag of the Temporal namespace, the
	// same on every command (--namespace is the memory namespace of a run).
	TemporalNamespaceFlag    = "temporal-namespace"
	DefaultTaskQueue         = "flowctl"
	DefaultTemporalAddress   = "127.0.0.1:7233"
	EnvGoEngine              = "FLOWCTL_GO_ENGINE"
	EnvUnconfined            = "FLOWCTL_UNCONFINED"
	EnvHTTPAllow             = "FLOWCTL_HTTP_ALLOW"
	EnvHTTPConns             = "FLOWCTL_HTTP_CONNS_PER_HOST"
	DefaultConnsPerHost      = 8
	EnvState                 = "FLOWCTL_STATE"
	EnvStateURL              = "FLOWCTL_STATE_URL"
	EnvStateWait             = "FLOWCTL_STATE_WAIT"
	DefaultStateWait         = 2 * time.Minute
	EnvMaxTokens             = "FLOWCTL_MAX_TOKENS"
	EnvModel                 = "FLOWCTL_MODEL"
	DefaultThinkMaxCalls     = 40
	DefaultWatchDebounce     = 20 * time.Millisecond
	DefaultLSPDebounce       = 20 * time.Millisecond
	DefaultIdempotencyExpiry = 24 * time.Hour
	DefaultMaxActive         = 64
	DefaultMaxQueue          = 10000
	DefaultShutdownGrace     = 10 * time.Second
	EnvToken                 = "FLOWCTL_TOKEN"
	EnvNotifySecret          = "FLOWCTL_NOTIFY_SECRET"
)

// ImportFormats are the formats import reads (importer.Formats).
var ImportFormats = []string{"anythingllm", "agentflow", "n8n"}

// The formats of tools --format.
const (
	ToolsOpenAI     = "openai"
	ToolsMCP        = "mcp"
	ToolsJSONSchema = "json-schema"
)

// The help shared by several commands' flags.
const (
	stateHelp       = "the state directory, or a postgres:// URL (default: " + EnvState + ", else the project's .flowctl: the nearest from the working directory up to the top of its git repository, else the one at that top, else the working directory's)"
	goEngineUsage   = "run every go block interpreted (by yaegi) or compiled (built by the Go toolchain on PATH), whatever its engine argument says (default: " + EnvGoEngine + ", else each block's own)"
	unconfinedUsage = "run python and compiled go blocks even where flowctl cannot confine their workers (macOS, Windows), with your user's access to files, the network and processes (default: " + EnvUnconfined + "=1)"
	maxTokensUsage  = "stop, writing nothing, before a model request would take the command past this many tokens (default: " + EnvMaxTokens + ", else no limit)"
	secretUsage     = "set a secret: NAME=VALUE (repeatable; default: from its environment variable)"
)

// durationText is a duration as a person writes it: 2m, not 2m0s.
func durationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
