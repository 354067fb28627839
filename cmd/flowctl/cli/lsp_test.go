package cli

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestLSPBadFrame: flowctl lsp given a message header it cannot read
// (the Content-Length near 2^62 that made the JSON-RPC library panic, a
// negative one, none) exits 1 with the reason on stderr, not a panic.
func TestLSPBadFrame(t *testing.T) {
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":{}}}`
	frame := func(body string) string { return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body }
	for bad, want := range map[string]string{
		"Content-Length: 4611686018427387904\r\n\r\n": "bad message header: Content-Length 4611686018427387904 is over the limit of 67108864 bytes (64 MiB)",
		"Content-Length: -5\r\n\r\n{}":                `bad message header: Content-Length "-5" is not a number of bytes`,
		"X-Other: 1\r\n\r\n{}":                        "bad message header: no Content-Length header",
	} {
		var out, errOut bytes.Buffer
		code := Run([]string{"lsp"}, streams{in: strings.NewReader(frame(initialize) + bad), out: &out, err: &errOut})
		if code != 1 || !strings.Contains(errOut.String(), want) || strings.Contains(errOut.String(), "panic") {
			t.Errorf("flowctl lsp with %q: exit %d, want 1 and %q in\n%s", bad, code, want, errOut.String())
		}
	}
}
