// Package benchutil holds what the benchmark programs share: a temporary
// directory with the flowctl binary built into it, writing the flows they
// measure, and reading run times from apply's JSON events.
package benchutil

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

// Start makes a temporary directory for the benchmark program name and
// builds flowctl into it (Build); it returns the directory, the binary's
// path and a function that removes the directory.
func Start(name string) (dir, bin string, done func()) {
	dir, err := os.MkdirTemp("", "flowctl-bench-"+name+"-")
	Check(err)
	return dir, Build(dir), func() { os.RemoveAll(dir) }
}

// WriteFile writes src to the file path, making its directory first.
func WriteFile(path string, src []byte) {
	Check(os.MkdirAll(filepath.Dir(path), 0o755))
	Check(os.WriteFile(path, src, 0o644))
}

// Build builds ./cmd/flowctl into dir and returns the binary's path. It
// must run from the repository's root, as `go run ./bench/...` does.
func Build(dir string) string {
	bin := filepath.Join(dir, "flowctl")
	build := exec.Command("go", "build", "-o", bin, "./cmd/flowctl")
	build.Stderr = os.Stderr
	Check(build.Run())
	return bin
}

// EventsTo sends cmd's standard output to a file in dir, as someone who
// keeps apply --json's events redirects it, rather than to a buffer of the
// benchmark's own: filling a buffer with tens of megabytes (the 24 MB of
// events of 100,000 instances) takes CPU from the process measured, on a
// machine of two cores (0.1–0.9 s more for that run). The function it
// returns closes the file and returns what it holds.
func EventsTo(cmd *exec.Cmd, dir string) func() []byte {
	path := filepath.Join(dir, "events.jsonl")
	f, err := os.Create(path)
	Check(err)
	cmd.Stdout = f
	return func() []byte {
		Check(f.Close())
		b, err := os.ReadFile(path)
		Check(err)
		return b
	}
}

// RunTime is the time from the run_started to the run_finished event of
// apply --json output.
func RunTime(events []byte) time.Duration {
	var first, last time.Time
	sc := bufio.NewScanner(bytes.NewReader(events))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var e struct {
			Type string    `json:"type"`
			Time time.Time `json:"time"`
		}
		Check(json.Unmarshal(sc.Bytes(), &e))
		switch e.Type {
		case "run_started":
			first = e.Time
		case "run_finished":
			last = e.Time
		}
	}
	return last.Sub(first)
}

// Median returns the middle value of v (sorting v).
func Median[T cmp.Ordered](v []T) T {
	slices.Sort(v)
	return v[len(v)/2]
}

// Check ends the program on an error.
func Check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
