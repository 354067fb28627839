package n8nlive

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/importer/importtest"
	_ "github.com/flowctl/flowctl/importer/n8n" // the converter TestN8N runs
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "record n8n's outputs in the cases (run/outputs.json)")

// TestN8N runs each n8n case of the corpus in n8n and in flowctl.
func TestN8N(t *testing.T) {
	n8n := os.Getenv("FLOWCTL_N8N")
	if n8n == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("FLOWCTL_N8N is not set: .ci/run installs n8n and runs this test with it")
		}
		t.Skip("FLOWCTL_N8N is not set (the path of n8n; .ci/run installs it)")
	}
	var cases []*importtest.Case
	for _, c := range importtest.Cases(t, "../testdata") {
		if c.Format == "n8n" && c.Runs() && !c.Serves() && c.Files["run/not-in-n8n"] == nil {
			cases = append(cases, c)
		}
	}
	if len(cases) < 4 {
		t.Fatalf("only %d n8n cases run", len(cases))
	}
	flowctl := buildFlowctl(t)
	home := t.TempDir()
	env, runnerEnv := n8nEnv(t, home)

	servers, ids := loadN8N(t, n8n, env, home, cases, nil)

	// One n8n runs them all, one after the other (execute-batch; n8n takes
	// tens of seconds to start), and keeps each execution's data.
	var all []string
	for _, c := range cases {
		all = append(all, ids[c.Name])
		env = append(env, caseEnv(c)...)
	}
	snapshots := filepath.Join(home, "snapshots")
	os.MkdirAll(snapshots, 0o755)
	stop := startRunner(t, n8n, runnerEnv)
	batch := runN8N(t, n8n, env, "execute-batch", "--ids="+strings.Join(all, ","), "--snapshot="+snapshots, "--output="+filepath.Join(home, "batch.json"))
	stop()

	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			srv := servers[c.Name]
			fromN8N := executionOf(t, filepath.Join(snapshots, ids[c.Name]+"-snapshot.json"), filepath.Join(home, "batch.json"), batch, ids[c.Name], c)
			srv.Reset()
			fromFlowctl := runFlowctl(t, flowctl, c, srv.URL)
			importtest.CompareOutputs(t, "flowctl", fromFlowctl, "n8n", fromN8N)
			if *update {
				record(t, c, fromN8N)
				return
			}
			importtest.CompareOutputs(t, "the case's record (run/outputs.json)", c.Outputs(t), "n8n", fromN8N)
		})
	}
}

// loadN8N gives n8n every case's workflow at once (one import), each with
// the URL of its own server and an id of its own, and their credentials
// (one import too); edit, when given, changes what n8n is given of a
// case's workflow. It returns the servers and the ids by case.
func loadN8N(t *testing.T, n8n string, env []string, home string, cases []*importtest.Case, edit func(c *importtest.Case, wf map[string]any)) (map[string]*importtest.Server, map[string]string) {
	servers := map[string]*importtest.Server{}
	wfDir := filepath.Join(home, "workflows")
	os.MkdirAll(wfDir, 0o755)
	ids := map[string]string{}
	for i, c := range cases {
		srv := importtest.NewServer(t, c)
		servers[c.Name] = srv
		var wf map[string]any
		if err := json.Unmarshal(importtest.Substitute(c.Files["source.json"], srv.URL), &wf); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		id := fmt.Sprintf("flowctlcase%05d", i)
		wf["id"] = id
		if wf["name"] == nil {
			wf["name"] = c.Name // n8n's database needs one (its editor gives "My workflow")
		}
		ids[c.Name] = id
		if edit != nil {
			edit(c, wf)
		}
		b, _ := json.Marshal(wf)
		os.WriteFile(filepath.Join(wfDir, fmt.Sprintf("%s.json", id)), b, 0o644)
	}
	runN8N(t, n8n, env, "import:workflow", "--separate", "--input="+wfDir)

	// Their credentials too, at once, each with its case's server.
	var creds []map[string]any
	byID := map[string]string{}
	for _, c := range cases {
		raw := c.Files["run/n8n-credentials.json"]
		if raw == nil {
			continue
		}
		var list []map[string]any
		if err := json.Unmarshal(importtest.Substitute(raw, servers[c.Name].URL), &list); err != nil {
			t.Fatalf("%s: run/n8n-credentials.json: %v", c.Name, err)
		}
		for _, cred := range list {
			id := fmt.Sprint(cred["id"])
			if other, ok := byID[id]; ok {
				t.Fatalf("%s and %s both give n8n a credential %q: one import holds them all, give each its own id", other, c.Name, id)
			}
			byID[id] = c.Name
			creds = append(creds, cred)
		}
	}
	if len(creds) > 0 {
		b, _ := json.Marshal(creds)
		p := filepath.Join(home, "credentials.json")
		os.WriteFile(p, b, 0o600)
		runN8N(t, n8n, env, "import:credentials", "--input="+p)
	}
	return servers, ids
}

// n8nEnv is n8n's environment: its own folder, loopback only, no
// telemetry, free ports, logs as JSON lines; and the environment of the
// task runner that runs its Code nodes (startRunner), which the test
// starts (N8N_RUNNERS_MODE=external).
func n8nEnv(t *testing.T, home string) (env, runner []string) {
	broker := freePort(t)
	env = []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"N8N_USER_FOLDER=" + home,
		"N8N_DIAGNOSTICS_ENABLED=false",
		"N8N_VERSION_NOTIFICATIONS_ENABLED=false",
		"N8N_TEMPLATES_ENABLED=false",
		"N8N_PERSONALIZATION_ENABLED=false",
		"N8N_HIRING_BANNER_ENABLED=false",
		"N8N_LISTEN_ADDRESS=127.0.0.1",
		"N8N_HOST=127.0.0.1",
		"N8N_PORT=" + freePort(t),
		"N8N_RUNNERS_BROKER_LISTEN_ADDRESS=127.0.0.1",
		"N8N_RUNNERS_BROKER_PORT=" + broker,
		"N8N_RUNNERS_MODE=external",
		"N8N_RUNNERS_AUTH_TOKEN=flowctl-import-test",
		// Far above the time the runner takes to connect on a busy machine.
		"N8N_RUNNERS_TASK_REQUEST_TIMEOUT=900",
		"N8N_ENCRYPTION_KEY=flowctl-import-test",
		"N8N_LOG_LEVEL=info",
		"N8N_LOG_FORMAT=json",
		"N8N_LOG_OUTPUT=console",
		"GENERIC_TIMEZONE=UTC",
		"TZ=UTC",
	}
	runner = []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"N8N_RUNNERS_TASK_BROKER_URI=http://127.0.0.1:" + broker,
		"N8N_RUNNERS_AUTH_TOKEN=flowctl-import-test",
		"GENERIC_TIMEZONE=UTC",
		"TZ=UTC",
	}
	return env, runner
}

// caseEnv is the environment a case gives n8n (run/env: NAME=VALUE
// lines), which its expressions read as $env.NAME; n8n lets them only
// with N8N_BLOCK_ENV_ACCESS_IN_NODE=false.
func caseEnv(c *importtest.Case) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(c.Files["run/env"])), "\n") {
		if line != "" {
			out = append(out, line)
		}
	}
	if len(out) > 0 {
		out = append(out, "N8N_BLOCK_ENV_ACCESS_IN_NODE=false")
	}
	return out
}

// startRunner starts n8n's JavaScript task runner for the next n8n
// execute (testdata/runner.js says why the test starts it) and returns
// the function that stops it.
func startRunner(t *testing.T, n8n string, env []string) (stop func()) {
	t.Helper()
	script, err := filepath.Abs("testdata/runner.js")
	if err != nil {
		t.Fatal(err)
	}
	// The flags n8n starts its own runner with.
	cmd := exec.Command("node", "--disallow-code-generation-from-strings", "--disable-proto=delete", script)
	cmd.Env = append(env, "N8N_MODULES="+filepath.Dir(filepath.Dir(n8n)))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("the n8n task runner: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cmd.Process.Kill()
			<-done
		})
	}
	t.Cleanup(func() {
		stop() // when n8n failed the test first
		if t.Failed() {
			t.Logf("the n8n task runner said:\n%s", out.String())
		}
	})
	return stop
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// runN8N runs an n8n command and returns its standard output; a failure
// fails the test with what n8n said.
func runN8N(t *testing.T, n8n string, env []string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, n8n, args...)
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("n8n %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.Bytes()
}

// executionOf reads the execution of a workflow that n8n's execute-batch
// ran (its snapshot, written for an execution without error; the batch's
// summary says why when there is none) and returns the items of its nodes
// without outgoing connections, by the names their outputs have in the
// imported flow (a node that did not run has none).
func executionOf(t *testing.T, snapshot, summary string, printed []byte, id string, c *importtest.Case) map[string]any {
	var run struct {
		Data struct {
			ResultData struct {
				Error   any `json:"error"`
				RunData map[string][]struct {
					Data struct {
						Main [][]struct {
							JSON any `json:"json"`
						} `json:"main"`
					} `json:"data"`
				} `json:"runData"`
			} `json:"resultData"`
		} `json:"data"`
	}
	b, err := os.ReadFile(snapshot)
	if err != nil {
		var sum struct {
			Executions []struct {
				WorkflowID string `json:"workflowId"`
				Status     string `json:"executionStatus"`
				Error      string `json:"error"`
			} `json:"executions"`
		}
		s, _ := os.ReadFile(summary)
		json.Unmarshal(s, &sum)
		for _, e := range sum.Executions {
			if e.WorkflowID == id {
				t.Fatalf("n8n's execution: %s: %s", e.Status, e.Error)
			}
		}
		t.Fatalf("n8n ran no execution of the case:\n%s\n%s", s, printed)
	}
	if err := json.Unmarshal(b, &run); err != nil || run.Data.ResultData.RunData == nil {
		t.Fatalf("n8n's execution data: %v\n%s", err, b)
	}
	if run.Data.ResultData.Error != nil {
		t.Fatalf("n8n's execution failed: %s", importtest.JSON(run.Data.ResultData.Error))
	}
	var wf struct {
		Nodes []struct {
			Name, Type string
			Disabled   bool
		} `json:"nodes"`
		Connections map[string]struct {
			Main [][]any `json:"main"`
		} `json:"connections"`
	}
	json.Unmarshal(c.Files["source.json"], &wf)
	var kinds struct {
		Connections map[string]map[string]json.RawMessage `json:"connections"`
	}
	json.Unmarshal(c.Files["source.json"], &kinds)
	sub := map[string]bool{}
	for name, ks := range kinds.Connections {
		for k := range ks {
			if strings.HasPrefix(k, "ai_") {
				sub[name] = true
			}
		}
	}
	outputs := map[string]any{}
	for _, node := range wf.Nodes {
		if strings.HasSuffix(strings.ToLower(node.Type), "trigger") || strings.HasSuffix(node.Type, ".stickyNote") {
			continue
		}
		if sub[node.Name] {
			continue // an AI sub-node: it runs inside its root, and has no items of its own
		}
		last := true
		for _, out := range wf.Connections[node.Name].Main {
			if len(out) > 0 {
				last = false
			}
		}
		if !last {
			continue
		}
		// The items of every run of the node, in the order it ran (a node
		// after several connections into one input runs once for each).
		items := []any{}
		for _, r := range run.Data.ResultData.RunData[node.Name] {
			if main := r.Data.Main; len(main) > 0 {
				for _, it := range main[0] {
					items = append(items, it.JSON)
				}
			}
		}
		outputs[importer.Snake(node.Name)] = items
	}
	return outputs
}

// buildFlowctl builds flowctl into the test's directory.
func buildFlowctl(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "flowctl")
	cmd := exec.Command("go", "build", "-o", bin, "../../cmd/flowctl")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runFlowctl imports the case's workflow and applies it; it returns the
// outputs.
func runFlowctl(t *testing.T, flowctl string, c *importtest.Case, url string) map[string]any {
	dir := t.TempDir()
	src := filepath.Join(dir, "workflow.json")
	os.WriteFile(src, importtest.Substitute(c.Files["source.json"], url), 0o644)
	run := func(args ...string) (string, string, error) {
		cmd := exec.Command(flowctl, args...)
		cmd.Env = append(os.Environ(), "FLOWCTL_MODEL=test")
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}
	out, errOut, err := run("import", "--out", filepath.Join(dir, "flow"), src)
	if err != nil {
		t.Fatalf("flowctl import: %v\n%s%s", err, out, errOut)
	}
	// A flow whose blocks declare packages (the HTML and Markdown nodes'
	// npm packages) is locked first, as import says: from the npm registry
	// of the environment (npm_config_registry), never skipped.
	if strings.Contains(out, "flowctl lock") {
		if out, errOut, err := run("lock", filepath.Join(dir, "flow")); err != nil {
			t.Fatalf("flowctl lock: %v\n%s%s", err, out, errOut)
		}
	}
	c.PointAtServer(t, filepath.Join(dir, "flow"), url)
	args := append([]string{"apply", "--auto-approve", "--json", "--state", filepath.Join(dir, "state")}, c.Args()...)
	out, errOut, err = run(append(args, filepath.Join(dir, "flow"))...)
	status, outputs := importtest.RunFinished(out)
	if err != nil || status != "ok" {
		t.Fatalf("flowctl apply: %v (%s)\n%s%s", err, status, out, errOut)
	}
	return outputs
}

// record writes n8n's outputs into the case (go test -update).
func record(t *testing.T, c *importtest.Case, outputs map[string]any) {
	ar, err := txtar.ParseFile(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(outputs, "", "  ")
	b = append(b, '\n')
	set := false
	for i := range ar.Files {
		if ar.Files[i].Name == "run/outputs.json" {
			ar.Files[i].Data, set = b, true
		}
	}
	if !set {
		ar.Files = append(ar.Files, txtar.File{Name: "run/outputs.json", Data: b})
	}
	if err := os.WriteFile(c.Path, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}
