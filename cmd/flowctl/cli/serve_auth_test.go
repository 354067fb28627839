package cli

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/flowctl/flowctl/server"
)

// TestTokenWatchSeesEarlierChange: a token file changed between the
// tokens' first reading and the start of the watch is read when the watch
// starts, not missed until the next change. (Beside two busy loops, a
// rotation made as serve started was never seen.)
func TestTokenWatchSeesEarlierChange(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	writeFile(t, file, "ana read t-ana-1\n")
	f := &tokenFlags{tokensFile: file}
	list, err := f.read()
	if err != nil {
		t.Fatal(err)
	}
	tokens := server.NewTokens(list, true)
	writeFile(t, file, "ana read t-ana-2\n") // before the watch
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.watch(ctx, tokens, slog.New(slog.NewTextHandler(io.Discard, nil)))
	h := server.RequireToken(tokens, server.RoleRead, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for token, want := range map[string]int{"t-ana-2": 200, "t-ana-1": 401} {
		r := httptest.NewRequest("GET", "/v1/runs", nil)
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("%s: %d, want %d", token, w.Code, want)
		}
	}
}
