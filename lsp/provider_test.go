package lsp

import (
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// TestCompleteProviders: provider.local's hover says its server and key,
// provider. completes the flow's providers, a
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
	var h *protocol.Hover
	if err := c.call("textDocument/hover", c.at(file, "provider.local", 10), &h); err != nil || h == nil ||
		!strings.Contains(h.Contents.Value, "**provider `local`**: `http://127.0.0.1:11434/v1`, key from `secret.local_key`") {
		t.Errorf("hover of provider.local: %v, %v", h, err)
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
