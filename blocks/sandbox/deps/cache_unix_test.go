//go:build unix

package deps

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCacheDirsMustBePrivate: an environment or package tree another
// local user could rename into the cache (the cache directory writable by
// others, or theirs) is not used, and the install says why; a private
// cache is used as before.
func TestCacheDirsMustBePrivate(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	py := &PythonEntry{Key: "evil", Python: "cp311", Platform: "linux_x86_64",
		Packages: []*Package{{Name: "evil", Version: "1.0", Wheel: "evil-1.0-py3-none-any.whl", Hash: strings.Repeat("0", 64)}}}
	js := &JSEntry{Key: "evil@1.0.0", Packages: map[string]string{"evil": "1.0.0"}}
	// What another user planted: a complete environment and tree under
	// the hashes the entries install to (anyone can compute them).
	plant := func(sub, hash string) {
		dir := filepath.Join(cache, "flowctl", sub, hash)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(map[string]string{"hash": hash})
		if err := os.WriteFile(filepath.Join(dir, marker), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plant("python-envs", py.Hash())
	plant("js-packages", js.Hash())
	interp := &Interpreter{Path: "/nonexistent/python", Tag: "cp311", Platform: "linux_x86_64"}
	ctx := context.Background()
	check := func(what string) {
		t.Helper()
		if env, err := interp.Install(ctx, py); err == nil || !strings.Contains(err.Error(), what) {
			t.Errorf("python: the planted environment was used (%v, %v)", env, err)
		}
		if dir, err := InstallJS(ctx, js); err == nil || !strings.Contains(err.Error(), what) {
			t.Errorf("js: the planted tree was used (%s, %v)", dir, err)
		}
	}
	flowctl := filepath.Join(cache, "flowctl")
	for _, d := range []string{flowctl, filepath.Join(flowctl, "python-envs"), filepath.Join(flowctl, "js-packages")} {
		os.Chmod(d, 0o777)
	}
	check("writable by other users")
	os.Chmod(flowctl, 0o755)
	check("writable by other users") // the entries' own directories still are
	for _, d := range []string{filepath.Join(flowctl, "python-envs"), filepath.Join(flowctl, "js-packages")} {
		os.Chmod(d, 0o755)
	}
	if os.Getuid() == 0 {
		os.Chown(flowctl, 65534, 65534)
		check("belongs to another user")
		os.Chown(flowctl, 0, 0)
	}
	// Private again: the environment there is the user's own, and used.
	if env, err := interp.Install(ctx, py); err != nil || env.Dir != filepath.Join(flowctl, "python-envs", py.Hash()) {
		t.Fatalf("a private cache is not used: %v", err)
	}
}
