// Command llm measures LLM steps through `flowctl apply` against a local
// OpenAI-compatible server it starts on loopback:
//
//   - 50 parallel llm steps (a for_each of 50, --parallelism 50) against a
//     server that takes 200ms per request, FLOWCTL_LLM_CONCURRENCY=10: the
//     run time (five waves: about 1.0s);
//
//   - 100 llm steps with FLOWCTL_LLM_RPM=600 against a fast server: the
//     largest number of requests the server saw in any 10-second window
//     (the limit is 100, plus the limiter's burst of 10).
//
//     go run ./bench/llm
package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
)

func main() {
	dir, bin, done := benchutil.Start("llm")
	defer done()

	var mu sync.Mutex
	var times []time.Time
	delay := 200 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		times = append(times, time.Now())
		d := delay
		mu.Unlock()
		time.Sleep(d)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	defer srv.Close()

	run := func(name string, n int, env ...string) time.Duration {
		d := filepath.Join(dir, name)
		flow := fmt.Sprintf("flow %q {}\n\nstep \"ask\" {\n  use      = \"llm\"\n  for_each = range(%d)\n  prompt   = \"question ${each.key}\"\n}\n", name, n)
		benchutil.WriteFile(filepath.Join(d, name+".flow.hcl"), []byte(flow))
		cmd := exec.Command(bin, "apply", "--auto-approve", "--json", "--parallelism", "100", d)
		cmd.Env = append(os.Environ(), append([]string{"OPENAI_BASE_URL=" + srv.URL, "OPENAI_API_KEY="}, env...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		benchutil.Check(cmd.Run())
		return benchutil.RunTime(out.Bytes())
	}

	fmt.Printf("50 llm steps, 200ms latency, concurrency 10: %6.0f ms run time\n",
		float64(run("parallel", 50, "FLOWCTL_LLM_CONCURRENCY=10").Milliseconds()))

	mu.Lock()
	times, delay = nil, 0
	mu.Unlock()
	took := run("rpm", 100, "FLOWCTL_LLM_RPM=600", "FLOWCTL_LLM_CONCURRENCY=100")
	mu.Lock()
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	most := 0
	for i := range times {
		j := i
		for j < len(times) && times[j].Sub(times[i]) < 10*time.Second {
			j++
		}
		most = max(most, j-i)
	}
	first10s := 0
	for _, t := range times {
		if t.Sub(times[0]) < time.Second {
			first10s++
		}
	}
	mu.Unlock()
	fmt.Printf("100 llm steps, FLOWCTL_LLM_RPM=600: %d requests in %.1fs; at most %d in any 10s window (limit 100 + burst 10); %d in the first second\n",
		len(times), took.Seconds(), most, first10s)
}
