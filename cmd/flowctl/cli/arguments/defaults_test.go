package arguments_test

import (
	"slices"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/blocks/sandbox/isolate"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/lsp"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/temporal"
	"github.com/flowctl/flowctl/runtime/watch"
	"github.com/flowctl/flowctl/server"
	"github.com/flowctl/flowctl/thinker"
)

// TestDefaults: the defaults and variables the flags' help names are
// those of the packages that act on them.
func TestDefaults(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"DefaultTaskQueue", arguments.DefaultTaskQueue, temporal.DefaultTaskQueue},
		{"DefaultTemporalAddress", arguments.DefaultTemporalAddress, temporal.DefaultAddress},
		{"EnvUnconfined", arguments.EnvUnconfined, isolate.EnvUnconfined},
		{"DefaultConnsPerHost", arguments.DefaultConnsPerHost, blocks.DefaultConnsPerHost},
		{"EnvState", arguments.EnvState, project.EnvState},
		{"EnvStateURL", arguments.EnvStateURL, project.EnvStateURL},
		{"EnvStateWait", arguments.EnvStateWait, state.EnvWait},
		{"DefaultStateWait", arguments.DefaultStateWait, state.DefaultWait},
		{"EnvMaxTokens", arguments.EnvMaxTokens, thinker.EnvMaxTokens},
		{"DefaultThinkMaxCalls", arguments.DefaultThinkMaxCalls, thinker.DefaultMaxCalls},
		{"EnvModel", arguments.EnvModel, llm.EnvModel},
		{"DefaultWatchDebounce", arguments.DefaultWatchDebounce, watch.DefaultDebounce},
		{"DefaultLSPDebounce", arguments.DefaultLSPDebounce, lsp.DefaultDebounce},
		{"DefaultIdempotencyExpiry", arguments.DefaultIdempotencyExpiry, server.DefaultIdempotencyExpiry},
		{"DefaultMaxActive", arguments.DefaultMaxActive, server.DefaultMaxActive},
		{"DefaultMaxQueue", arguments.DefaultMaxQueue, server.DefaultMaxQueue},
	} {
		if c.got != c.want {
			t.Errorf("arguments.%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	var formats []string
	for _, f := range importer.Formats {
		formats = append(formats, string(f))
	}
	if !slices.Equal(arguments.ImportFormats, formats) {
		t.Errorf("arguments.ImportFormats = %v, want importer.Formats %v", arguments.ImportFormats, formats)
	}
}
