package engine

import (
	"bytes"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/temporal"
	"github.com/hashicorp/hcl/v2"
)

// TestHTTPOptions: the connections to one host are FLOWCTL_HTTP_CONNS_PER_HOST's,
// and --http-conns-per-host wins over it.
func TestHTTPOptions(t *testing.T) {
	three := func(k string) (string, bool) { return map[string]string{EnvHTTPConns: "3"}[k], k == EnvHTTPConns }
	if o, err := HTTPOptions(nil, 0, three); err != nil || o.ConnsPerHost != 3 {
		t.Errorf("%s=3: %+v %v", EnvHTTPConns, o, err)
	}
	if o, err := HTTPOptions(nil, 5, three); err != nil || o.ConnsPerHost != 5 {
		t.Errorf("the flag does not win over the environment: %+v %v", o, err)
	}
}

// TestMinLevel: the SDK's logger keeps warnings and errors only.
func TestMinLevel(t *testing.T) {
	var buf bytes.Buffer
	l := MinLevel(slog.New(slog.NewTextHandler(&buf, nil)), slog.LevelWarn)
	l.Info("dropped")
	l.With("a", 1).Warn("kept", "k", "v")
	if got := buf.String(); strings.Contains(got, "dropped") || !strings.Contains(got, "level=WARN msg=kept a=1 k=v") {
		t.Errorf("logged %q", got)
	}
}

// TestSettingErrors: every setting that cannot be used is a
// *SettingError naming it, which commands report as a usage mistake.
func TestSettingErrors(t *testing.T) {
	env := func(k, v string) func(string) (string, bool) {
		return func(key string) (string, bool) { return v, key == k }
	}
	t.Setenv(EnvName, "")
	t.Setenv(EnvGoEngine, "")
	_, errHTTP := HTTPOptions(nil, -1, env("", ""))
	_, errTimeout := HTTPOptions(nil, 0, env(EnvHTTPTimeout, "soon"))
	_, errAllow := HTTPOptions([]string{"http://example.com"}, 0, env("", ""))
	_, errWorkers := SandboxWorkers(env(EnvSandboxWorkers, "0"))
	_, errEngine := Resolve("cloud")
	_, errGo := ResolveGoEngine("fast")
	for _, c := range []struct {
		err  error
		want string
	}{
		{errHTTP, "--http-conns-per-host must be at least 1"},
		{errTimeout, `FLOWCTL_HTTP_TIMEOUT must be a duration such as 60s or 2m, not "soon"`},
		{errAllow, "the HTTP allow list (--http-allow or FLOWCTL_HTTP_ALLOW)"},
		{errWorkers, `FLOWCTL_SANDBOX_WORKERS must be a whole number of at least 1, not "0"`},
		{errEngine, `unknown engine "cloud": use local or temporal`},
		{errGo, `unknown --go-engine "fast": use interpreted or compiled`},
	} {
		var se *SettingError
		if !errors.As(c.err, &se) || !strings.Contains(se.Msg, c.want) {
			t.Errorf("error %v (%T), want a *SettingError with %q", c.err, c.err, c.want)
		}
	}
	if n, err := SandboxWorkers(env(EnvSandboxWorkers, "3")); n != 3 || err != nil {
		t.Errorf("SandboxWorkers = %d, %v; want 3", n, err)
	}
	t.Setenv(EnvName, Temporal)
	if got, err := Resolve(""); got != Temporal || err != nil {
		t.Errorf("Resolve with %s=temporal = %q, %v", EnvName, got, err)
	}
	t.Setenv(EnvGoEngine, "slow")
	if _, err := ResolveGoEngine(""); err == nil || err.Error() != `FLOWCTL_GO_ENGINE must be interpreted or compiled, not "slow"` {
		t.Errorf("a bad %s: %v", EnvGoEngine, err)
	}
}

// TestConnectDiagnostic: the diagnostic of Temporal not answering says
// where the address came from.
func TestConnectDiagnostic(t *testing.T) {
	ce := &temporal.ConnectError{Address: "127.0.0.1:1", Err: errors.New("connection refused.")}
	t.Setenv("TEMPORAL_ADDRESS", "")
	for _, c := range []struct {
		given, env, want string
	}{
		{"127.0.0.1:1", "", "(given with --address): connection refused. Start one"},
		{"", "127.0.0.1:1", "(from TEMPORAL_ADDRESS)"},
		{"", "", "(the default: neither --address nor TEMPORAL_ADDRESS is set)"},
	} {
		t.Setenv("TEMPORAL_ADDRESS", c.env)
		d := OnTemporal{Address: c.given}.ConnectDiagnostic(ce)
		if d.Summary != "Cannot connect to Temporal" || !strings.Contains(d.Detail, "No Temporal server answers at 127.0.0.1:1 "+c.want) {
			t.Errorf("address %q, TEMPORAL_ADDRESS %q: %s: %s", c.given, c.env, d.Summary, d.Detail)
		}
	}
}

// TestExecutorsLogging: the prompt log is made (mode 0600) with the
// executors, and a sandbox mode that does not exist is a setting error
// that leaves no executors.
func TestExecutorsLogging(t *testing.T) {
	log := filepath.Join(t.TempDir(), "prompts.jsonl")
	ex, release, err := ExecutorsLogging(Options{Sandbox: SandboxInProcess}, log)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Runtimes["go"] == nil || ex.Runtimes["python"] == nil || ex.Builtins["llm"] == nil {
		t.Errorf("executors %+v", ex)
	}
	release()
	if info, err := os.Stat(log); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the prompt log: %v %v", info, err)
	}
	var se *SettingError
	if _, _, err := ExecutorsLogging(Options{Sandbox: "cloud"}, ""); !errors.As(err, &se) {
		t.Errorf("an unknown sandbox: %v", err)
	}
}

// TestRunnerNoServer: with no Temporal server at the address, Runner's
// error is the diagnostic that says what to do.
func TestRunnerNoServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing answers there now
	st, err := state.Open(filepath.Join(t.TempDir(), ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t.Setenv(temporal.EnvKey, "")
	_, err = OnTemporal{Address: addr, TaskQueue: "q"}.Runner(st)
	var diags hcl.Diagnostics
	if !errors.As(err, &diags) || diags[0].Summary != "Cannot connect to Temporal" || !strings.Contains(diags[0].Detail, addr+" (given with --address)") {
		t.Errorf("Runner with no server: %v", err)
	}
}
