package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serveEnv makes the test binary a language server on its standard input
// and output (TestMain), for editors that start one.
const serveEnv = "FLOWCTL_LSP_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		if err := Serve(os.Stdin, os.Stdout, Options{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestNeovim opens a flow with a mistake in Neovim (headless), with the
// configuration docs/editors.md gives (editors/neovim/flowctl.lua), and
// checks that the diagnostic arrives through Neovim's own LSP client.
// .ci/run installs Debian's neovim; without it the test is skipped,
// except in CI.
func TestNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nvim is not installed; .ci/run installs Debian's neovim")
		}
		t.Skip("nvim is not installed")
	}
	dir := t.TempDir()
	flow := filepath.Join(dir, "typo.flow.hcl")
	os.WriteFile(flow, []byte("flow \"typo\" {}\n\ninput \"topic\" {\n  type = string\n}\n\nstep \"echo\" {\n  use   = \"value\"\n  value = input.topc\n}\n"), 0o644)
	config, _ := filepath.Abs(filepath.Join("..", "editors", "neovim", "flowctl.lua"))
	script, _ := filepath.Abs(filepath.Join("testdata", "neovim", "diagnostic.lua"))
	result := filepath.Join(dir, "result.txt")
	self, _ := os.Executable()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), serveEnv+"=1", "FLOWCTL_SERVER="+self, "FLOWCTL_FLOW="+flow,
		"FLOWCTL_NVIM_CONFIG="+config, "FLOWCTL_RESULT="+result, "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir)
	out, err := cmd.CombinedOutput()
	got, rerr := os.ReadFile(result)
	if rerr != nil {
		t.Fatalf("nvim wrote no result (%v): %v\n%s", rerr, err, out)
	}
	want := `9:11 Unknown input: There is no input named "topc" in this flow. Did you mean "topic"?`
	if strings.TrimSpace(string(got)) != want {
		t.Errorf("Neovim's diagnostics:\n%s\nwant:\n%s", got, want)
	}
}
