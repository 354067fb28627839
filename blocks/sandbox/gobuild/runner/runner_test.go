package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMain serves the protocol when the test binary is started as a
// worker, with an Execute that doubles n, prints, fails or panics.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == WorkerArg {
		Serve(func(ctx context.Context, in map[string]any) (map[string]any, error) {
			switch in["do"] {
			case "fail":
				return nil, errors.New("no good")
			case "panic":
				var m map[string]int
				m["x"] = 1
			case "spin":
				<-ctx.Done()
				for {
				}
			}
			Println("n is", in["n"])
			return map[string]any{"n": in["n"].(float64) * 2}, nil
		})
	}
	os.Exit(m.Run())
}

// TestServe starts the test binary as a worker and speaks the protocol
// with it: the hello, replies with outcomes and log lines, requests sent
// ahead, and a timeout that ends the worker after its reply.
func TestServe(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	reqR, reqW, _ := os.Pipe()
	repR, repW, _ := os.Pipe()
	cmd := exec.Command(exe, WorkerArg, "-cpu=1m", `-missing=["a layer (why)"]`)
	cmd.ExtraFiles = []*os.File{reqR, repW}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reqR.Close()
	repW.Close()
	defer cmd.Process.Kill()
	replies := bufio.NewReader(repR)
	next := func() message {
		t.Helper()
		line, err := replies.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		return m
	}
	if m := next(); !m.Hello || len(m.Missing) == 0 || m.Missing[0] != "a layer (why)" {
		t.Fatalf("hello: %+v", m)
	}
	// Three requests at once: they are answered in order.
	reqW.Write([]byte(`{"id":1,"block_key":"k","inputs":{"n":21}}` + "\n" +
		`{"id":2,"block_key":"k","inputs":{"do":"fail"}}` + "\n" +
		`{"id":3,"block_key":"k","inputs":{"do":"panic"}}` + "\n"))
	if m := next(); m.ID != 1 || m.Log == nil || *m.Log != "n is 21" {
		t.Fatalf("log line: %+v", m)
	}
	if m := next(); m.ID != 1 || !m.Done || string(m.Outcome.Outputs["n"]) != "42" {
		t.Fatalf("reply 1: %+v", m)
	}
	if m := next(); m.ID != 2 || !m.Outcome.HasErr || m.Outcome.Err != "no good" {
		t.Fatalf("reply 2: %+v", m.Outcome)
	}
	if m := next(); m.ID != 3 || !m.Outcome.Panicked || !strings.Contains(m.Outcome.PanicMsg, "nil map") {
		t.Fatalf("reply 3: %+v", m.Outcome)
	}
	reqW.Write([]byte(`{"id":4,"block_key":"k","inputs":{"do":"spin"},"timeout_ms":50}` + "\n"))
	if m := next(); m.ID != 4 || !m.Timeout || !m.Recycle || m.Outcome != nil {
		t.Fatalf("reply 4: %+v", m)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the worker ended with %v after a timeout", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the worker did not end after a timeout")
	}
}

// TestRun: what Execute gives, encoded as the interpreter encodes it.
func TestRun(t *testing.T) {
	exec := func(out map[string]any, err error) Execute {
		return func(context.Context, map[string]any) (map[string]any, error) { return out, err }
	}
	o := run(exec(map[string]any{"a": 1, "f": func() {}, "deep": nest(maxDepth + 1)}, nil), context.Background(), nil)
	if string(o.Outputs["a"]) != "1" || !strings.Contains(o.BadJSON["f"], "unsupported type") || !strings.Contains(o.Unreadable["deep"], "exceeded max depth") {
		t.Errorf("outcome %+v", o)
	}
	if o := run(exec(nil, nil), context.Background(), nil); !o.NilMap {
		t.Errorf("nil map: %+v", o)
	}
	if o := run(exec(map[string]any{"ok": nest(maxDepth)}, nil), context.Background(), nil); len(o.Unreadable) != 0 {
		t.Errorf("%d levels are readable: %+v", maxDepth, o.Unreadable)
	}
	// Outputs over the cap are refused here: the reply holds none of them.
	defer func(n int) { cfg.output = n }(cfg.output)
	cfg.output = 10
	big := exec(map[string]any{"a": "12345", "b": "6789"}, nil)
	if o := run(big, context.Background(), nil); len(o.Outputs) != 0 || o.TooLarge != 13 {
		t.Errorf("over the cap: %+v", o)
	}
	cfg.output = 13
	if o := run(big, context.Background(), nil); len(o.Outputs) != 2 || o.TooLarge != 0 {
		t.Errorf("at the cap: %+v", o)
	}
}

func nest(n int) any {
	var v any = 1
	for range n {
		v = []any{v}
	}
	return v
}

// TestLogLines: print and println reach the running call's log in whole
// lines, up to maxLog bytes, and nothing between calls.
func TestLogLines(t *testing.T) {
	var buf bytes.Buffer
	out.w = bufio.NewWriter(&buf)
	Println("dropped: no call runs")
	logs.begin(9)
	Print("a", 1)
	Println(" b")
	Print("tail")
	logs.end()
	logs.begin(10)
	Print(strings.Repeat("x", maxLog+1))
	logs.end()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m message
		json.Unmarshal([]byte(l), &m)
		lines = append(lines, *m.Log)
	}
	want := []string{"a 1 b", "tail", "(the block printed more than 1048576 bytes; the rest is not logged)"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("log lines %q, want %q", lines, want)
	}
	if cpuUsed() <= 0 {
		t.Error("no CPU time used")
	}
}
