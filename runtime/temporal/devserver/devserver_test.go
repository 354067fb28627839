package devserver

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestStartOnAnotherPort: a server whose port another process holds
// exits, and is started again on other ports.
func TestStartOnAnotherPort(t *testing.T) {
	bin := Find()
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no temporal CLI: go install github.com/temporalio/cli/cmd/temporal@v1.5.1 (.ci/run does)")
		}
		t.Skip("no temporal CLI (go install github.com/temporalio/cli/cmd/temporal@v1.5.1); CI runs this test")
	}
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	taken := held.Addr().(*net.TCPAddr).Port
	chosen := 0
	choosePort = func() (int, error) {
		chosen++
		if chosen == 1 {
			return taken, nil // the first server's gRPC port is held
		}
		return freePort()
	}
	defer func() { choosePort = freePort }()
	s, err := Start(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if chosen < 4 || strings.HasSuffix(s.Addr, ":"+strconv.Itoa(taken)) {
		t.Errorf("the server is at %s after %d ports were chosen; port %d was held", s.Addr, chosen, taken)
	}
}
