package cli

import (
	"testing"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/server"
)

// TestArgumentsNames: the variables and values the flags' help names
// (package arguments) are those the commands read.
func TestArgumentsNames(t *testing.T) {
	for _, c := range []struct{ name, got, want string }{
		{"EnvEngine", arguments.EnvEngine, envEngine},
		{"EngineLocal", arguments.EngineLocal, engineLocal},
		{"EngineTemporal", arguments.EngineTemporal, engineTemporal},
		{"EnvGoEngine", arguments.EnvGoEngine, engine.EnvGoEngine},
		{"EnvHTTPAllow", arguments.EnvHTTPAllow, engine.EnvHTTPAllow},
		{"EnvHTTPConns", arguments.EnvHTTPConns, engine.EnvHTTPConns},
		{"EnvToken", arguments.EnvToken, server.EnvToken},
		{"EnvNotifySecret", arguments.EnvNotifySecret, envNotifySecret},
		{"SandboxIsolated", arguments.SandboxIsolated, engine.SandboxIsolated},
		{"SandboxInProcess", arguments.SandboxInProcess, engine.SandboxInProcess},
	} {
		if c.got != c.want {
			t.Errorf("arguments.%s = %q, want %q", c.name, c.got, c.want)
		}
	}
}
