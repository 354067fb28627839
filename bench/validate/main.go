// Command validate measures `flowctl validate` on generated flows of 1,000
// and 10,000 steps (10 and 100 chains of 100 value steps): wall time and
// peak resident memory of the whole process, the median of several runs.
//
//	go run ./bench/validate [-runs 5]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
	"github.com/flowctl/flowctl/bench/flowgen"
)

func main() {
	runs := flag.Int("runs", 5, "runs per size; the median is reported")
	flag.Parse()
	dir, err := os.MkdirTemp("", "flowctl-bench-")
	benchutil.Check(err)
	defer os.RemoveAll(dir)
	bin := benchutil.Build(dir)

	fmt.Printf("%-8s %-8s %12s %12s %14s\n", "steps", "stages", "wall", "peak RSS", "per step")
	var base time.Duration
	for _, size := range []struct{ chains, length int }{{10, 100}, {100, 100}} {
		n := size.chains * size.length
		flow := filepath.Join(dir, fmt.Sprintf("chains%d.flow.hcl", n))
		benchutil.Check(os.WriteFile(flow, flowgen.Chains(size.chains, size.length), 0o644))
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
		sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
		sort.Slice(rss, func(i, j int) bool { return rss[i] < rss[j] })
		wall := walls[len(walls)/2]
		fmt.Printf("%-8d %-8d %12s %9.1f MB %11.1f µs", n, size.length, wall.Round(time.Millisecond),
			float64(rss[len(rss)/2])/1024, float64(wall.Microseconds())/float64(n))
		if base == 0 {
			base = wall
			fmt.Println()
		} else {
			fmt.Printf("   (%.1f× the 1k time for 10× the steps)\n", float64(wall)/float64(base))
		}
	}
}
