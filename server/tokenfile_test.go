package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func writeTokens(t *testing.T, file, src string) {
	t.Helper()
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestTokenWatchSeesEarlierChange: a token file changed between the
// tokens' first reading and the start of the watch is read when the watch
// starts, not missed until the next change. (Beside two busy loops, a
// rotation made as serve started was never seen.)
func TestTokenWatchSeesEarlierChange(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	writeTokens(t, file, "ana read t-ana-1-0123456789\n")
	f := TokenFiles{Named: file}
	list, err := f.Read()
	if err != nil {
		t.Fatal(err)
	}
	tokens := NewTokens(list, true)
	writeTokens(t, file, "ana read t-ana-2-0123456789\n") // before the watch
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.Watch(ctx, tokens, slog.New(slog.NewTextHandler(io.Discard, nil)))
	h := RequireToken(tokens, RoleRead, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for token, want := range map[string]int{"t-ana-2-0123456789": 200, "t-ana-1-0123456789": 401} {
		r := httptest.NewRequest("GET", "/v1/runs", nil)
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("%s: %d, want %d", token, w.Code, want)
		}
	}
}

// TestLoopbackAndAllowedHosts: only a loopback address or localhost is
// the loopback interface; the host of the address a server listens on is
// allowed, unless it is every interface's.
func TestLoopbackAndAllowedHosts(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:8080": true, "[::1]:80": true, "localhost:1": true, "0.0.0.0:8080": false, "example.com:80": false} {
		if got, err := Loopback(addr); err != nil || got != want {
			t.Errorf("Loopback(%q) = %v, %v; want %v", addr, got, err, want)
		}
	}
	if _, err := Loopback("8080"); err == nil {
		t.Error("Loopback(\"8080\"): no error")
	}
	if got := AllowedHosts("flows.example:8080", []string{"a.example"}); !slices.Equal(got, []string{"a.example", "flows.example"}) {
		t.Errorf("AllowedHosts: %v", got)
	}
	if got := AllowedHosts("0.0.0.0:8080", nil); len(got) != 0 {
		t.Errorf("AllowedHosts of every interface: %v", got)
	}
}
