// Command apply measures `flowctl apply` as a user runs it, in a separate
// process, and prints the figures:
//
//   - a cold apply of a 10-step chain: process wall time (new state each run);
//
//   - 10,000 value steps (100 chains × 100) with --no-cache: run time, from
//     the run_started to the run_finished event, per step, and the peak RSS
//     of the process;
//
//   - a skewed DAG of sleeps (chain A 10 × 30ms, chain B 300ms then 9 × 1ms):
//     run time against the 309ms critical path;
//
//   - a for_each of 20 × sleep 200ms, with --parallelism 20 and with the
//     default 16.
//
//     go run ./bench/apply [-runs 5]
package main

import (
	"bytes"
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

var (
	runs = flag.Int("runs", 5, "runs per figure; the median is reported")
	bin  string
	dir  string
)

func main() {
	flag.Parse()
	var err error
	dir, err = os.MkdirTemp("", "flowctl-bench-")
	benchutil.Check(err)
	defer os.RemoveAll(dir)
	bin = benchutil.Build(dir)

	wall, _, _ := measure("chain10", flowgen.Chain(10), true)
	fmt.Printf("cold apply, 10-step chain:        %8.1f ms process wall time\n", ms(wall))

	_, run, rss := measure("chains10k", flowgen.Chains(100, 100), false, "--no-cache")
	fmt.Printf("10,000 value steps, --no-cache:   %8.1f ms run time, %.1f µs/step, peak RSS %.0f MB\n",
		ms(run), float64(run.Microseconds())/10000, float64(rss)/1024)

	_, run, _ = measure("skewed", flowgen.Skewed(), false)
	fmt.Printf("skewed DAG (critical path 309ms): %8.1f ms run time, %.2f× the critical path\n",
		ms(run), float64(run)/float64(309*time.Millisecond))

	_, run, _ = measure("fanout20", flowgen.FanOut(20, "200ms"), false, "--parallelism", "20")
	fmt.Printf("for_each 20 × sleep 200ms:        %8.1f ms run time (--parallelism 20)\n", ms(run))
	_, run, _ = measure("fanout20d", flowgen.FanOut(20, "200ms"), false)
	fmt.Printf("for_each 20 × sleep 200ms:        %8.1f ms run time (default --parallelism 16)\n", ms(run))
}

// measure applies a flow *runs times and returns the median process wall
// time, run time (from the events) and peak RSS in KiB. With fresh, every
// run starts from an empty state.
func measure(name string, src []byte, fresh bool, extra ...string) (time.Duration, time.Duration, int64) {
	d := filepath.Join(dir, name)
	benchutil.Check(os.MkdirAll(d, 0o755))
	benchutil.Check(os.WriteFile(filepath.Join(d, name+".flow.hcl"), src, 0o644))
	var walls, runTimes []time.Duration
	var rss []int64
	for i := 0; i < *runs; i++ {
		if fresh {
			benchutil.Check(os.RemoveAll(filepath.Join(d, ".flowctl")))
		}
		args := append([]string{"apply", "--auto-approve", "--json", d}, extra...)
		cmd := exec.Command(bin, args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		start := time.Now()
		benchutil.Check(cmd.Run())
		walls = append(walls, time.Since(start))
		runTimes = append(runTimes, benchutil.RunTime(out.Bytes()))
		rss = append(rss, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	}
	return median(walls), median(runTimes), medianInt(rss)
}

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

func medianInt(v []int64) int64 {
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	return v[len(v)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
