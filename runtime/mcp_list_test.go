package runtime

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/flowctl/flowctl/compiler"
)

// TestListFlowMCPTools: a flow that names no mcp_server, and one that
// does not compile, are left out; a server that cannot start is listed
// with its error.
func TestListFlowMCPTools(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := write("plain.flow.hcl", `flow "plain" {}`)
	broken := write("broken.flow.hcl", `flow "broken" {}
mcp_server "x" {`)
	served := write("served.flow.hcl", `flow "served" {}
mcp_server "local" {
  command = [`+"\""+filepath.Join(dir, "no-such-server")+"\""+`]
}
`)
	got := ListFlowMCPTools([]string{plain, broken, served}, compiler.Options{}, 10*time.Second)
	if len(got) != 1 || got[0].Flow != served || got[0].Err == nil || got[0].Name() != "mcp.local.*" {
		t.Fatalf("tools %+v", got)
	}
}
