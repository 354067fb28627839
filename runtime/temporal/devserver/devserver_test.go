package devserver

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestStartOnAnotherPort: a server whose port another process holds
// exits, and is started again on other ports; when that process is another
// dev server, which answers at the address, the new one is not taken for
// it.
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
	other, err := Start(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Stop()
	for _, c := range []struct {
		name  string
		taken int
	}{
		{"a listener", held.Addr().(*net.TCPAddr).Port},
		{"another dev server", other.port},
	} {
		chosen := 0
		choosePort = func() (int, error) {
			chosen++
			if chosen == 1 {
				return c.taken, nil // the new server's gRPC port is held
			}
			return freePort()
		}
		s, err := Start(bin)
		choosePort = freePort
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if chosen < 4 || strings.HasSuffix(s.Addr, ":"+strconv.Itoa(c.taken)) {
			t.Errorf("%s: the server is at %s after %d ports were chosen; port %d was held", c.name, s.Addr, chosen, c.taken)
		}
		s.Stop()
	}
}
