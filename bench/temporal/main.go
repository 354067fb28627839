// Command temporal measures runs on the temporal engine against a
// Temporal dev server (the temporal CLI's, v1.5.1: -temporal, else
// FLOWCTL_TEMPORAL, else temporal in PATH or ~/.cache/flowctl/bin), side
// by side with the same work as a plain Temporal SDK workflow and with the
// local engine:
//
//   - a 100-step chain of http steps (a local server that answers at
//     once): flowctl on Temporal, plain SDK activities, plain SDK local
//     activities, and flowctl's local engine;
//   - a 100-step chain of value steps, which run inside the workflow;
//   - for_each 20 × sleep 200ms (Temporal timers), and a plain SDK
//     workflow of 20 × 200ms timers.
//
// Times are from starting the workflow to its result, as a client sees
// them (for the local engine: apply's run time).
//
//	go run ./bench/temporal [-runs 3]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
	"github.com/flowctl/flowctl/bench/flowgen"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	ftemporal "github.com/flowctl/flowctl/runtime/temporal"
	"github.com/flowctl/flowctl/runtime/temporal/devserver"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

var (
	runs    = flag.Int("runs", 3, "runs per figure; the median is reported")
	tempBin = flag.String("temporal", "", "the temporal CLI (default: FLOWCTL_TEMPORAL, else PATH, else ~/.cache/flowctl/bin/temporal)")
)

const steps = 100

func main() {
	flag.Parse()
	dir, flowctl, done := benchutil.Start("temporal")
	defer done()

	// A server that answers at once, with its path.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	benchutil.Check(err)
	go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) }))
	base := "http://" + l.Addr().String()

	bin := *tempBin
	if bin == "" {
		bin = devserver.Find()
	}
	srv, err := devserver.Start(bin)
	benchutil.Check(err)
	defer srv.Stop()
	addr := srv.Addr

	flows := filepath.Join(dir, "flows")
	write := func(name string, src []byte) string {
		p := filepath.Join(flows, name, name+".flow.hcl")
		benchutil.WriteFile(p, src)
		return p
	}
	httpFlow := write("httpchain", flowgen.HTTPChain(steps, base))
	valueFlow := write("chains", flowgen.Chain(steps))
	fanFlow := write("fanout", flowgen.FanOut(20, "200ms"))

	w := exec.Command(flowctl, "worker", "--engine", "temporal", "--address", addr, "--task-queue", "bench", flows)
	w.Stderr = os.Stderr
	benchutil.Check(w.Start())
	defer func() { w.Process.Signal(syscall.SIGTERM); w.Wait() }()

	c, err := ftemporal.Dial(ftemporal.DialOptions{Address: addr})
	benchutil.Check(err)
	defer c.Close()

	// Plain SDK workflows doing the same http GETs, on a worker here.
	pw := worker.New(c, "plain", worker.Options{})
	pw.RegisterWorkflowWithOptions(plainChain, workflow.RegisterOptions{Name: "plain-chain"})
	pw.RegisterWorkflowWithOptions(plainTimers, workflow.RegisterOptions{Name: "plain-timers"})
	pw.RegisterActivityWithOptions(get, activity.RegisterOptions{Name: "get"})
	benchutil.Check(pw.Start())
	defer pw.Stop()

	flowctlRun := func(path string) time.Duration {
		prog, diags := compiler.Compile(path, compiler.Options{Parser: lang.NewParser()})
		if diags.HasErrors() {
			benchutil.Check(diags)
		}
		return median(func() time.Duration {
			inputs, diags := prog.ResolveInputs(nil)
			if diags.HasErrors() {
				benchutil.Check(diags)
			}
			in, err := ftemporal.NewRunInput(prog, inputs, "", "", false)
			benchutil.Check(err)
			in.NoCache = true
			start := time.Now()
			run, err := ftemporal.Start(context.Background(), c, "bench", in)
			benchutil.Check(err)
			var out ftemporal.RunOutput
			benchutil.Check(run.Get(context.Background(), &out))
			if out.Status != "ok" {
				benchutil.Check(fmt.Errorf("run %s: %s", out.Status, out.Error))
			}
			return time.Since(start)
		})
	}
	plainRun := func(local bool) time.Duration {
		return median(func() time.Duration {
			start := time.Now()
			run, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{TaskQueue: "plain"}, "plain-chain", base, local)
			benchutil.Check(err)
			benchutil.Check(run.Get(context.Background(), nil))
			return time.Since(start)
		})
	}
	localRun := func(path string) time.Duration {
		return median(func() time.Duration {
			var out bytes.Buffer
			cmd := exec.Command(flowctl, "apply", "--auto-approve", "--json", "--no-cache", "--state", filepath.Join(dir, "local-state"), path)
			cmd.Stdout, cmd.Stderr = &out, os.Stderr
			benchutil.Check(cmd.Run())
			return benchutil.RunTime(out.Bytes())
		})
	}

	// The fan-outs first: timers fire later on a server whose history
	// service has more to do.
	timers := median(func() time.Duration {
		start := time.Now()
		run, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{TaskQueue: "plain"}, "plain-timers")
		benchutil.Check(err)
		benchutil.Check(run.Get(context.Background(), nil))
		return time.Since(start)
	})
	fmt.Printf("for_each 20 × sleep 200ms on Temporal:  %7.1f ms (a plain SDK workflow of 20 × 200ms timers: %.1f ms)\n", ms(flowctlRun(fanFlow)), ms(timers))
	fmt.Printf("100-step value chain on Temporal:       %7.1f ms\n", ms(flowctlRun(valueFlow)))
	flowctlHTTP, plain, plainLocal, local := flowctlRun(httpFlow), plainRun(false), plainRun(true), localRun(httpFlow)
	fmt.Printf("100-step http chain: flowctl on Temporal %7.1f ms (%.2f ms/step, %.2f× plain activities); plain SDK activities %7.1f ms (%.2f ms/step); plain local activities %6.1f ms; flowctl local engine %6.1f ms\n",
		ms(flowctlHTTP), ms(flowctlHTTP)/steps, float64(flowctlHTTP)/float64(plain), ms(plain), ms(plain)/steps, ms(plainLocal), ms(local))
}

// plainChain runs the chain of GETs as plain activities (or local ones).
func plainChain(ctx workflow.Context, base string, local bool) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: time.Minute})
	prev := ""
	for i := 0; i < steps; i++ {
		url := fmt.Sprintf("%s/%d?after=%s", base, i, prev)
		var f workflow.Future
		if local {
			f = workflow.ExecuteLocalActivity(ctx, get, url)
		} else {
			f = workflow.ExecuteActivity(ctx, "get", url)
		}
		if err := f.Get(ctx, &prev); err != nil {
			return err
		}
	}
	return nil
}

// plainTimers waits for 20 timers of 200ms at once.
func plainTimers(ctx workflow.Context) error {
	var fs []workflow.Future
	for range 20 {
		fs = append(fs, workflow.NewTimer(ctx, 200*time.Millisecond))
	}
	for _, f := range fs {
		if err := f.Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}

func get(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func median(f func() time.Duration) time.Duration {
	f() // warm up
	var v []time.Duration
	for range *runs {
		v = append(v, f())
	}
	return benchutil.Median(v)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
