package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The flows a flowctl mcp server serves to the tests of the mcp block.
const mcpGreetFlow = `
flow "greet" {
  description = "Greets someone"
}

input "who" {
  type        = string
  description = "Whom to greet"
}

output "greeting" {
  value = "Hello, ${input.who}!"
}
`

const mcpBoomFlow = `
flow "boom" {
  description = "Always fails"
}

block "fail" {
  runtime = "js"
  output "x" { type = string }
  source  = "function execute() { throw new Error('kaboom') }"
}

step "fail" {
  use = "fail"
}

output "x" {
  value = step.fail.x
}
`

// mcpServerDir writes the flows the server serves and returns the
// directory.
func mcpServerDir(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "served")
	os.MkdirAll(dir, 0o755)
	writeFile(t, filepath.Join(dir, "greet.flow.hcl"), mcpGreetFlow)
	writeFile(t, filepath.Join(dir, "boom.flow.hcl"), mcpBoomFlow)
	return dir
}

// stdioServer is an mcp_server block that starts this test binary as
// flowctl mcp DIR.
func stdioServer(t *testing.T, name, dir string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return `mcp_server "` + name + `" {
  command = [` + strconv.Quote(exe) + `, "mcp", "--sandbox", "inprocess", ` + strconv.Quote(dir) + `]
  env     = { FLOWCTL_TEST_MAIN = "1" }
}
`
}

// TestMCPBlock applies a flow whose mcp steps call tools of flowctl mcp
// over stdio: a call's structured result is the step's result; an
// unknown tool and a tool that fails fail their steps with what the
// server said.
func TestMCPBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	served := mcpServerDir(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.flow.hcl"), `
flow "main" {}
`+stdioServer(t, "local", served)+`
step "hello" {
  use       = "mcp"
  server    = "local"
  tool      = "greet"
  arguments = { who = "Ada" }
}

step "again" {
  use       = "mcp"
  server    = "local"
  tool      = "greet"
  arguments = { who = step.hello.result.greeting }
}

step "typo" {
  use      = "mcp"
  server   = "local"
  tool     = "gret"
  on_error = "continue"
}

step "boom" {
  use      = "mcp"
  server   = "local"
  tool     = "boom"
  on_error = "continue"
}

output "greeting" {
  value = step.hello.result.greeting
}

output "again" {
  value = step.again.result.greeting
}

output "text" {
  value = step.hello.text
}
`)
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--json", filepath.Join(dir, "main.flow.hcl"))
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	var outputs map[string]any
	errs := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e map[string]any
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e["type"] {
		case "run_finished":
			outputs, _ = e["outputs"].(map[string]any)
		case "step_finished":
			if msg, ok := e["error"].(string); ok {
				errs[e["step"].(string)] = msg
			}
		}
	}
	if outputs["greeting"] != "Hello, Ada!" || outputs["again"] != "Hello, Hello, Ada!!" {
		t.Errorf("outputs: %v", outputs)
	}
	if text, _ := outputs["text"].(string); !strings.Contains(text, "Hello, Ada!") {
		t.Errorf("text: %q", text)
	}
	if !strings.Contains(errs["typo"], `has no tool named "gret"; its tools are boom, greet`) {
		t.Errorf("unknown tool: %q", errs["typo"])
	}
	if !strings.Contains(errs["boom"], `tool "boom" of mcp_server "local" failed`) || !strings.Contains(errs["boom"], "kaboom") {
		t.Errorf("failing tool: %q", errs["boom"])
	}
}

// TestMCPToolsOfLLM: an llm step's tools may be an MCP server's: the
// model sees the server's description and schema, its call runs on the
// server and the result goes back to it; a server reached over HTTP gets
// its headers (a bearer token from a secret).
func TestMCPToolsOfLLM(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	served := mcpServerDir(t)
	// The same flows over streamable HTTP, with a token.
	cmd := flowctl(t, served, "mcp", "--sandbox", "inprocess", "--http", "127.0.0.1:0", ".")
	cmd.Env = append(cmd.Env, "FLOWCTL_TOKEN=t0k3n-0123456789abcdef")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	url := ""
	for sc := bufio.NewScanner(stderr); sc.Scan(); {
		if m := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`).FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		t.Fatal("mcp --http did not say where it listens")
	}
	go io.Copy(io.Discard, stderr)

	m := newScriptedModel(t,
		toolCalls(1, "greet", `{"who": "Bo"}`, "boom", `{}`),
		map[string]any{"role": "assistant", "content": `{"answer": "said hello"}`},
	)
	t.Setenv("OPENAI_BASE_URL", m.URL)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("MCP_TOKEN", "t0k3n-0123456789abcdef")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.flow.hcl"), `
flow "main" {}

secret "token" {
  env = "MCP_TOKEN"
}

mcp_server "remote" {
  url     = "`+url+`"
  headers = { Authorization = "Bearer ${secret.token}" }
}
`+stdioServer(t, "local", served)+`
step "answer" {
  use    = "llm"
  prompt = "Greet Bo."
  tools  = [mcp.remote.greet, mcp.local.boom]
  output "answer" {
    type = string
  }
}

output "answer" {
  value = step.answer.answer
}
`)
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--json", filepath.Join(dir, "main.flow.hcl"))
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, `"tool":"mcp.remote.greet"`) || !strings.Contains(out, `"answer":"said hello"`) {
		t.Errorf("events:\n%s", out)
	}
	if strings.Contains(out, "t0k3n-0123456789abcdef") {
		t.Error("the token is in the events")
	}
	reqs := m.got()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	tools, _ := json.Marshal(reqs[0]["tools"])
	for _, want := range []string{`"name":"greet"`, `"description":"Greets someone"`, `"who"`, `"name":"boom"`} {
		if !strings.Contains(string(tools), want) {
			t.Errorf("the tools the model saw lack %s: %s", want, tools)
		}
	}
	results := toolMessages(reqs[1])
	if !strings.Contains(results["call_1"], `Hello, Bo!`) {
		t.Errorf("greet's result: %q", results["call_1"])
	}
	if !strings.Contains(results["call_2"], "kaboom") {
		t.Errorf("boom's result: %q", results["call_2"])
	}
}
