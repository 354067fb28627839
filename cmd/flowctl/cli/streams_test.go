package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyMainTouchesTheProcessStreams keeps the view pattern: commands
// write to the streams they are given, so their output can be captured,
// tested and redirected; only the entry point names the process's own.
func TestOnlyMainTouchesTheProcessStreams(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "root.go" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "os.Stderr") || strings.Contains(line, "os.Stdout") {
				t.Errorf("%s:%d writes to the process's streams: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
