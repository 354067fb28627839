// Command foreach measures for_each at scale as a user runs it: `flowctl
// apply --json` in a fresh process and a fresh state, with default
// settings, over a list of records given with --input-file, its events
// written to a file (benchutil.EventsTo). It prints, for each figure, the
// process wall time, the run time (from the run_started to the
// run_finished event) and the peak RSS of the process (as bench/apply
// measures it):
//
//   - a value step over 10,000 and over 100,000 records (each reshaped:
//     an object built from the record, a function called), and how much
//     more 100,000 cost than 10,000;
//
//   - a js block called once per record over 20,000 records, in the
//     default sandbox (isolated worker processes);
//
//   - `flowctl runs show` of the 100,000-instance run, as people read it
//     and with --json.
//
//     go run ./bench/foreach [-runs 3] [-large 100000]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
	"github.com/flowctl/flowctl/bench/flowgen"
)

var (
	runs  = flag.Int("runs", 3, "runs per figure; the median is reported")
	small = flag.Int("small", 10000, "records of the small value for_each")
	large = flag.Int("large", 100000, "records of the large value for_each")
	calls = flag.Int("js", 20000, "records of the js for_each")
	bin   string
	dir   string
)

// A figure is the median of a command's runs.
type figure struct {
	wall, run time.Duration
	rssKB     int64
}

func main() {
	flag.Parse()
	var err error
	dir, err = os.MkdirTemp("", "flowctl-bench-foreach-")
	benchutil.Check(err)
	defer os.RemoveAll(dir)
	bin = benchutil.Build(dir)

	s := apply("small", flowgen.ForEach(false), *small)
	report(fmt.Sprintf("for_each over %d value items:", *small), s)
	l := apply("large", flowgen.ForEach(false), *large)
	report(fmt.Sprintf("for_each over %d value items:", *large), l)
	fmt.Printf("  %d items cost %.1f× what %d do (process wall time)\n", *large, float64(l.wall)/float64(s.wall), *small)

	report(fmt.Sprintf("%d js calls (for_each, sandbox):", *calls), apply("js", flowgen.ForEach(true), *calls))

	state := filepath.Join(dir, "large", ".flowctl")
	report(fmt.Sprintf("runs show, %d instances:", *large), measure(nil, "runs", "show", "latest", "--state", state))
	report(fmt.Sprintf("runs show --json, %d instances:", *large), measure(nil, "runs", "show", "latest", "--json", "--state", state))
}

func report(what string, f figure) {
	line := fmt.Sprintf("%-42s %8.0f ms process wall time", what, ms(f.wall))
	if f.run > 0 {
		line += fmt.Sprintf(", %8.0f ms run time", ms(f.run))
	}
	fmt.Printf("%s, peak RSS %4.0f MB\n", line, float64(f.rssKB)/1024)
}

// apply writes a flow and n records in a directory of its own and applies
// it *runs times, each from an empty state.
func apply(name string, src []byte, n int) figure {
	d := filepath.Join(dir, name)
	benchutil.Check(os.MkdirAll(d, 0o755))
	benchutil.Check(os.WriteFile(filepath.Join(d, name+".flow.hcl"), src, 0o644))
	items := filepath.Join(d, "items.json")
	benchutil.Check(os.WriteFile(items, flowgen.Items(n), 0o644))
	return measure(func() { benchutil.Check(os.RemoveAll(filepath.Join(d, ".flowctl"))) },
		"apply", "--auto-approve", "--json", "--input-file", items, d)
}

// measure runs flowctl with args *runs times (calling before first, when
// set) and returns the medians; the run time when it printed apply's
// events.
func measure(before func(), args ...string) figure {
	var walls, runTimes []time.Duration
	var rss []int64
	for i := 0; i < *runs; i++ {
		if before != nil {
			before()
		}
		cmd := exec.Command(bin, args...)
		cmd.Stderr = os.Stderr
		events := benchutil.EventsTo(cmd, dir)
		start := time.Now()
		benchutil.Check(cmd.Run())
		walls = append(walls, time.Since(start))
		if out := events(); args[0] == "apply" {
			runTimes = append(runTimes, benchutil.RunTime(out))
		}
		rss = append(rss, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	}
	f := figure{wall: benchutil.Median(walls), rssKB: benchutil.Median(rss)}
	if len(runTimes) > 0 {
		f.run = benchutil.Median(runTimes)
	}
	return f
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
