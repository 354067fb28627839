package lsp

import (
	"slices"
	"testing"

	"go.lsp.dev/protocol"
)

// TestCompleteProviders: provider. completes the flow's providers, a
// line in a provider block its arguments, and a line at the top level
// offers the provider block.
func TestCompleteProviders(t *testing.T) {
	const file = "chat/chat.flow.hcl"
	c := startServer(t, "testdata/providers.txtar")
	c.open(file)
	c.diagnostics(file, func(p protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) == 0 })
	labels := func(needle string, delta int) []string {
		t.Helper()
		var res protocol.CompletionList
		if err := c.call("textDocument/completion", c.at(file, needle, delta), &res); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range res.Items {
			out = append(out, it.Label)
		}
		return out
	}
	c.edit(file, "provider = provider.local", "provider = provider.")
	if got := labels("provider = provider.", 20); !slices.Equal(got, []string{"local", "remote"}) {
		t.Errorf("provider. completes %v; want [local remote]", got)
	}
	c.edit(file, "  api_key  = secret.local_key\n", "  api_key  = secret.local_key\n  \n")
	if got := labels("local_key\n  \n", 12); !slices.Contains(got, "tpm") || !slices.Contains(got, "prices") {
		t.Errorf("a provider's arguments complete as %v", got)
	}
	c.edit(file, "flow \"chat\" {}\n", "flow \"chat\" {}\n\n")
	if got := labels("flow \"chat\" {}\n\n", 15); !slices.Contains(got, "provider") {
		t.Errorf("the top level completes %v; want provider among them", got)
	}
}
