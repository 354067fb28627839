package depstest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOfflineOwnCache: the environments a test installs are in a cache of
// its own, never in the user's, where another package's test, running at
// the same time, uses the same environment (the cause of numpy imported
// as an empty namespace package in a busy run); Go's build cache stays
// the user's.
func TestOfflineOwnCache(t *testing.T) {
	user, err := os.UserCacheDir()
	if err != nil {
		t.Skip("no user cache directory")
	}
	goCache := os.Getenv("GOCACHE")
	Offline(t, t.TempDir())
	dir := envDir(t)
	if strings.HasPrefix(dir, user+string(filepath.Separator)) {
		t.Fatalf("environments go to %s, under the user's cache %s", dir, user)
	}
	want := goCache
	if want == "" {
		want = filepath.Join(user, "go-build")
	}
	if got := os.Getenv("GOCACHE"); got != want {
		t.Errorf("GOCACHE = %q, want the user's %q", got, want)
	}
}
