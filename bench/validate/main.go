// Command validate measures `flowctl validate` on generated flows of 1,000
// and 10,000 steps (10 and 100 chains of 100 value steps): wall time and
// peak resident memory of the whole process, the median of several runs.
// With -broken it measures instead how long validate takes to diagnose
// broken 1 MB files (random bytes, printable junk, a token on every line,
// brackets nested 250,000 deep, one long line of errors), for people and
// with --json.
//
//	go run ./bench/validate [-runs 5] [-broken]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
	"github.com/flowctl/flowctl/bench/flowgen"
)

func main() {
	runs := flag.Int("runs", 5, "runs per size; the median is reported")
	broken := flag.Bool("broken", false, "measure broken 1 MB files instead")
	flag.Parse()
	dir, bin, done := benchutil.Start("validate")
	defer done()
	if *broken {
		brokenFiles(bin, dir, *runs)
		return
	}

	fmt.Printf("%-8s %-8s %12s %12s %14s\n", "steps", "stages", "wall", "peak RSS", "per step")
	var base time.Duration
	for _, size := range []struct{ chains, length int }{{10, 100}, {100, 100}} {
		n := size.chains * size.length
		flow := filepath.Join(dir, fmt.Sprintf("chains%d.flow.hcl", n))
		benchutil.WriteFile(flow, flowgen.Chains(size.chains, size.length))
		var walls []time.Duration
		var rss []int64
		for i := 0; i < *runs; i++ {
			cmd := exec.Command(bin, "validate", flow)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			walls = append(walls, time.Since(start))
			if err != nil {
				fmt.Fprintf(os.Stderr, "validate failed: %v\n%s", err, out)
				os.Exit(1)
			}
			rss = append(rss, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) // KiB on Linux
		}
		wall := benchutil.Median(walls)
		fmt.Printf("%-8d %-8d %12s %9.1f MB %11.1f µs", n, size.length, wall.Round(time.Millisecond),
			float64(benchutil.Median(rss))/1024, float64(wall.Microseconds())/float64(n))
		if base == 0 {
			base = wall
			fmt.Println()
		} else {
			fmt.Printf("   (%.1f× the 1k time for 10× the steps)\n", float64(wall)/float64(base))
		}
	}
}

// brokenFiles measures validate on broken files of 1 MB.
func brokenFiles(bin, dir string, runs int) {
	const size = 1 << 20
	rnd := rand.New(rand.NewPCG(1, 2))
	junk := func(alphabet string) []byte {
		b := make([]byte, size)
		for i := range b {
			b[i] = alphabet[rnd.IntN(len(alphabet))]
		}
		return b
	}
	random := make([]byte, size)
	for i := range random {
		random[i] = byte(rnd.UintN(256))
	}
	files := []struct {
		name string
		src  []byte
	}{
		{"random bytes", random},
		{"printable junk", junk("abcdefghijklmnopqrstuvwxyz{}[]()=\" \n\t,.:;#/*-+<>!?$%&0123456789")},
		{"a token a line", bytes.Repeat([]byte("a\n"), size/2)},
		{"nested brackets", bytes.Repeat([]byte("x {\n"), size/4)},
		{"one long line", append([]byte("flow \"f\" {}\nlocals {\n  x = "), bytes.Repeat([]byte("nope + "), size/7)...)},
	}
	fmt.Printf("%-16s %12s %12s %12s %12s %12s\n", "1 MB of", "diagnostics", "wall", "peak RSS", "json wall", "json RSS")
	for _, f := range files {
		path := filepath.Join(dir, "broken.flow.hcl")
		benchutil.WriteFile(path, f.src)
		human, humanRSS, _ := measure(bin, runs, "validate", path)
		jsonWall, jsonRSS, out := measure(bin, runs, "validate", "--json", path)
		var v struct {
			Errors int `json:"error_count"`
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for t, err := dec.Token(); err == nil; t, err = dec.Token() {
			if t == "error_count" {
				benchutil.Check(dec.Decode(&v.Errors))
				break
			}
		}
		fmt.Printf("%-16s %12d %12s %9.1f MB %12s %9.1f MB\n", f.name, v.Errors, human.Round(time.Millisecond), float64(humanRSS)/1024,
			jsonWall.Round(time.Millisecond), float64(jsonRSS)/1024)
	}
}

// measure runs flowctl runs times and returns the median wall time and peak
// RSS (KiB), and the last run's standard output. A failing exit is
// expected: the files are broken.
func measure(bin string, runs int, args ...string) (time.Duration, int64, []byte) {
	var walls []time.Duration
	var rss []int64
	var out []byte
	for range runs {
		// Only the start of the output is kept: --json prints the counts
		// first, and holding hundreds of megabytes here would count in
		// the next child's peak RSS (a forked child starts as big as this
		// process).
		cmd := exec.Command(bin, args...)
		head := &headWriter{n: 4096}
		cmd.Stdout = head
		start := time.Now()
		cmd.Run()
		walls = append(walls, time.Since(start))
		rss = append(rss, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
		out = head.b
	}
	return benchutil.Median(walls), benchutil.Median(rss), out
}

// headWriter keeps the first n bytes written to it.
type headWriter struct {
	b []byte
	n int
}

func (h *headWriter) Write(p []byte) (int, error) {
	if room := h.n - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
