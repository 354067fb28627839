// Command apply measures `flowctl apply` as a user runs it, in a separate
// process, and prints the figures:
//
//   - a cold apply of a 10-step chain: process wall time (new state each run);
//
//   - 10,000 value steps (100 chains × 100) with --no-cache: run time, from
//     the run_started to the run_finished event, per step, and the peak RSS
//     of the process, with the peaks of its own (anonymous) memory and of
//     the binary's pages it maps;
//
//   - a skewed DAG of sleeps (chain A 10 × 30ms, chain B 300ms then 9 × 1ms):
//     run time against the 309ms critical path;
//
//   - for_each fan-outs of steps that only wait, with default settings:
//     20 and 1,000 × sleep 200ms, and 200 http requests to a local server
//     that answers in 100ms, spread over 4 hosts (127.0.0.2–5): run time,
//     and the most connections any host had open at once (the limit is 8
//     per host by default).
//
//     go run ./bench/apply [-runs 5]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
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
	if anon, file := peakMemory(); anon > 0 {
		fmt.Printf("  of which at most %.0f MB the process's own memory, %.0f MB the binary's mapped pages\n",
			float64(anon)/1024, float64(file)/1024)
	}

	_, run, _ = measure("skewed", flowgen.Skewed(), false)
	fmt.Printf("skewed DAG (critical path 309ms): %8.1f ms run time, %.2f× the critical path\n",
		ms(run), float64(run)/float64(309*time.Millisecond))

	_, run, _ = measure("fanout20", flowgen.FanOut(20, "200ms"), false)
	fmt.Printf("for_each 20 × sleep 200ms:        %8.1f ms run time\n", ms(run))
	_, run, _ = measure("fanout1000", flowgen.FanOut(1000, "200ms"), false)
	fmt.Printf("for_each 1,000 × sleep 200ms:     %8.1f ms run time\n", ms(run))

	srv := newSlowServer(4, 100*time.Millisecond)
	defer srv.close()
	_, run, _ = measure("http200", flowgen.Requests(srv.urls(200)), false, "--no-cache")
	fmt.Printf("200 http requests, 4 hosts:       %8.1f ms run time, at most %d connections open to one host\n",
		ms(run), srv.maxOpen())
}

// slowServer answers every request after a delay, on several loopback
// addresses, and counts the connections open to each.
type slowServer struct {
	srv   *http.Server
	addrs []string
	mu    sync.Mutex
	open  map[string]int // by local address
	most  int
}

func newSlowServer(hosts int, delay time.Duration) *slowServer {
	s := &slowServer{open: map[string]int{}}
	s.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(delay)
			w.Write([]byte("ok"))
		}),
		ConnState: func(c net.Conn, st http.ConnState) {
			host := c.LocalAddr().String()
			s.mu.Lock()
			defer s.mu.Unlock()
			switch st {
			case http.StateNew:
				s.open[host]++
				s.most = max(s.most, s.open[host])
			case http.StateClosed, http.StateHijacked:
				s.open[host]--
			}
		},
	}
	for i := 0; i < hosts; i++ {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", i+2))
		benchutil.Check(err)
		s.addrs = append(s.addrs, l.Addr().String())
		go s.srv.Serve(l)
	}
	return s
}

// urls returns n URLs of the server, spread over its hosts in turn.
func (s *slowServer) urls(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("http://%s/item/%d", s.addrs[i%len(s.addrs)], i)
	}
	return out
}

func (s *slowServer) maxOpen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.most
}

func (s *slowServer) close() { s.srv.Close() }

// measure applies a flow *runs times and returns the median process wall
// time, run time (from the events) and peak RSS in KiB. With fresh, every
// run starts from an empty state.
func measure(name string, src []byte, fresh bool, extra ...string) (time.Duration, time.Duration, int64) {
	d := filepath.Join(dir, name)
	benchutil.Check(os.MkdirAll(d, 0o755))
	benchutil.Check(os.WriteFile(filepath.Join(d, name+".flow.hcl"), src, 0o644))
	var walls, runTimes []time.Duration
	var rss []int64
	peakAnon, peakFile = nil, nil
	for i := 0; i < *runs; i++ {
		if fresh {
			benchutil.Check(os.RemoveAll(filepath.Join(d, ".flowctl")))
		}
		args := append([]string{"apply", "--auto-approve", "--json", d}, extra...)
		cmd := exec.Command(bin, args...)
		cmd.Stderr = os.Stderr
		events := benchutil.EventsTo(cmd, dir)
		start := time.Now()
		benchutil.Check(cmd.Start())
		stop := watchMemory(cmd.Process.Pid)
		benchutil.Check(cmd.Wait())
		stop()
		walls = append(walls, time.Since(start))
		runTimes = append(runTimes, benchutil.RunTime(events()))
		rss = append(rss, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	}
	return benchutil.Median(walls), benchutil.Median(runTimes), benchutil.Median(rss)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// The peaks of the process's anonymous memory and of its mapped file
// pages (the binary's code and data, as many as the kernel mapped), in
// KiB, as /proc/PID/status tells them every few milliseconds: peak RSS
// counts both, and how much of the binary a process maps depends on how
// the kernel cached the file (a binary just written by the linker is
// mapped in larger pieces than one read back from disk).
var peakAnon, peakFile []int64

// watchMemory samples a process's memory until stop is called, and
// keeps its peaks for peakMemory. Where /proc is not there, it keeps
// nothing.
func watchMemory(pid int) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var anon, file int64
		defer func() {
			if anon > 0 {
				peakAnon, peakFile = append(peakAnon, anon), append(peakFile, file)
			}
		}()
		for {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
				anon = max(anon, statusKB(b, "RssAnon:"))
				file = max(file, statusKB(b, "RssFile:"))
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); <-finished }
}

// peakMemory returns the medians of the peaks watchMemory kept for the
// last measure.
func peakMemory() (anon, file int64) {
	if len(peakAnon) == 0 {
		return 0, 0
	}
	return benchutil.Median(peakAnon), benchutil.Median(peakFile)
}

// statusKB reads the value of a field of /proc/PID/status, in kB.
func statusKB(status []byte, field string) int64 {
	i := bytes.Index(status, []byte(field))
	if i < 0 {
		return 0
	}
	var kb int64
	fmt.Sscan(string(status[i+len(field):min(len(status), i+len(field)+24)]), &kb)
	return kb
}
