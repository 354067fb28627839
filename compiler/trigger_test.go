package compiler_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang/jsonval"
)

const triggerHead = `flow "f" {}
secret "hook" {}
input "repo" { type = string }
input "tags" {
  type    = list(string)
  default = []
}
output "repo" { value = input.repo }
`

// TestTriggers checks trigger blocks: the inputs mapping is type-checked
// against the flow's inputs with request.body of body_schema's type, and
// each mistake is reported where it is.
func TestTriggers(t *testing.T) {
	prog, errs := compileSource(t, triggerHead+`
trigger "push" {
  webhook {
    path        = "/hooks/github"
    verify      = "github"
    secret      = secret.hook
    body_schema = { repository = { full_name = string }, ref = string, labels = list(string) }
  }
  inputs  = { repo = request.body.repository.full_name, tags = request.body.labels }
  when    = request.headers["x-github-event"] == "push"
  respond = output.repo
}
`)
	if errs != "no diagnostics" {
		t.Fatalf("a valid trigger does not compile: %s", errs)
	}
	if tr := prog.Triggers[0]; tr.Webhook.Method != "POST" || tr.Webhook.MaxBody != 1<<20 || tr.Respond != "output" || tr.Output != "repo" {
		t.Errorf("trigger decoded as %+v, webhook %+v", tr, tr.Webhook)
	}
	for _, c := range []struct{ src, want string }{
		{`trigger "t" {
  webhook {
    path        = "/h"
    verify      = "github"
    secret      = secret.hook
    body_schema = { repository = { full_name = list(string) } }
  }
  inputs = { repo = request.body.repository.full_name }
}`, `c.flow.hcl:16,12-56: Invalid input value; The value given for input "repo" by trigger "t" is not a string`},
		{`trigger "t" {
  webhook {
    path        = "/h"
    verify      = "github"
    secret      = secret.hook
    body_schema = { ref = string }
  }
  inputs = { repo = request.body.repository }
}`, `c.flow.hcl:16,33-44: Unsupported attribute`},
		{`trigger "t" {
  webhook {
    path = "/h"
  }
  inputs = { repo = "x" }
}`, `Missing required argument; The argument "verify" is required`},
		{`trigger "t" {
  webhook {
    path   = "/h"
    verify = "none"
  }
  inputs   = { repo = "x" }
  priority = 1.5
}`, `c.flow.hcl:15,14-17: Invalid priority`},
		{`trigger "t" {
  webhook {
    path   = "/h"
    verify = "none"
    secret = secret.hook
  }
  inputs = { repo = "x" }
}`, `Secret without verification`},
		{`trigger "t" {
  webhook {
    path   = "/h"
    verify = "stripe"
    secret = secret.hok
  }
  inputs = { repo = "x" }
}`, `Unknown secret; Trigger "t" names secret "hok", which flow "f" does not declare. Did you mean "hook"?`},
		{`trigger "t" {
  webhook {
    path   = "/h"
    verify = "hmac"
    secret = secret.hook
  }
  inputs = { repo = "x" }
}`, `Missing header`},
		{`trigger "t" {
  webhook {
    path   = "/h"
    verify = "none"
  }
}`, `Missing required input; Input "repo" has no default, so trigger "t" must give it`},
		{`trigger "t" {
  webhook {
    path   = "/v1/flows"
    verify = "none"
  }
  inputs = { repo = "x" }
}`, `Invalid webhook path`},
		{`trigger "t" {
  webhook {
    path      = "/h"
    verify    = "stripe"
    secret    = secret.hook
    tolerance = "500ms"
  }
  inputs = { repo = "x" }
}`, `Invalid tolerance`},
		{`trigger "t" {
  webhook {
    path   = "/evals"
    verify = "none"
  }
  inputs = { repo = "x" }
}`, `Invalid webhook path`},
		{`trigger "t" {
  webhook {
    path   = "/hooks/../v1/flows"
    verify = "none"
  }
  inputs = { repo = "x" }
}`, `Invalid webhook path`},
		{`trigger "t" {
  webhook {
    path   = "/hooks//github"
    verify = "none"
  }
  inputs = { repo = "x" }
}`, `Invalid webhook path`},
		{`trigger "t" {
  respond = "outputs"
  on_run { flow = "f" }
  inputs  = { repo = run.id }
}`, `Not for on_run`},
		{`trigger "t" {
  webhook {
    path   = "/h"
    verify = "none"
  }
  on_run { flow = "f" }
  inputs = { repo = "x" }
}`, `Duplicate trigger source`},
		{`trigger "t" {
  inputs = { repo = "x" }
}`, `Missing trigger source`},
		{`trigger "t" {
  webhook {
    path   = "/h"
    verify = "none"
  }
  inputs       = { repo = "x" }
  content_type = "text/html"
}`, `content_type without output`},
		{`trigger "t" {
  webhook {
    path   = "/h"
    verify = "none"
  }
  inputs  = { repo = "x" }
  respond = output.nope
}`, `Unknown output; Trigger "t" answers with output "nope"`},
		{`output "key" {
  value     = "k-${secret.hook}"
  sensitive = true
}
trigger "t" {
  webhook {
    path   = "/h"
    verify = "none"
  }
  inputs  = { repo = "x" }
  respond = output.key
}`, `Sensitive output; Trigger "t" answers with output "key", which is sensitive`},
		{`trigger "t" {
  on_run {
    status = ["done"]
    flow   = "f"
  }
  inputs = { repo = run.id }
}`, `Invalid status`},
		{`trigger "t" {
  on_run { flow = "f" }
  inputs = { repo = run.id }
}`, `Trigger cycle; The ends of runs start runs in a cycle: f → f`},
		{`trigger "t" {
  on_run {
    flow = "nope"
  }
  inputs = { repo = run.id }
}`, `Unknown flow; Trigger "t" starts after runs of flow "nope"`},
	} {
		if _, errs := compileSource(t, triggerHead+c.src); !strings.Contains(errs, c.want) {
			t.Errorf("%s\ngot errors %q, want %q", c.src, errs, c.want)
		}
	}
}

// TestTriggerCycle checks that flows whose on_run triggers start each
// other in a cycle do not compile, the error at the on_run's flow.
func TestTriggerCycle(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.flow.hcl", `flow "a" {}
trigger "after_c" {
  on_run { flow = "c" }
}
`)
	write("b.flow.hcl", `flow "b" {}
trigger "after_a" {
  on_run {
    flow   = "a"
    status = ["ok", "failed"]
  }
}
`)
	c := write("c.flow.hcl", `flow "c" {}
trigger "after_b" {
  on_run { flow = "b" }
}
`)
	_, diags := compiler.Compile(a, compiler.Options{})
	if got, want := diags.Error(), `a.flow.hcl:3,19-22: Trigger cycle; The ends of runs start runs in a cycle: a → b → c → a`; !strings.Contains(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// Without the cycle, it compiles, and run is in scope.
	write("a.flow.hcl", `flow "a" {}`)
	write("c.flow.hcl", `flow "c" {}
input "batch" { type = string }
trigger "after_b" {
  on_run { flow = "b" }
  inputs = { batch = run.outputs.batch_id }
  when   = run.status == "ok"
}
`)
	if _, diags := compiler.Compile(c, compiler.Options{}); diags.HasErrors() {
		t.Errorf("an on_run trigger without a cycle: %s", diags.Error())
	}
}

// TestCheckBody checks that a body that does not fit body_schema is
// refused naming the field's path.
func TestCheckBody(t *testing.T) {
	prog, errs := compileSource(t, triggerHead+`
trigger "push" {
  webhook {
    path        = "/h"
    verify      = "none"
    body_schema = { repository = { full_name = string } }
  }
  inputs = { repo = request.body.repository.full_name }
}
`)
	if errs != "no diagnostics" {
		t.Fatal(errs)
	}
	for body, want := range map[string]string{
		`{"repository": {"name": "x"}}`:         `body.repository.full_name: a string is required`,
		`{"repository": {"full_name": [1, 2]}}`: `body.repository.full_name: a string is required, not a list`,
		`{"repository": {"full_name": "a/b"}}`:  ``,
	} {
		v, err := jsonval.Decode([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		_, err = compiler.CheckBody(prog.Triggers[0], v)
		if got := ""; err != nil {
			got = err.Error()
			if want == "" || !strings.Contains(got, want) {
				t.Errorf("%s: got %q, want %q", body, got, want)
			}
		} else if want != "" {
			t.Errorf("%s: no error, want %q", body, want)
		}
	}
}

// TestBodySchemaFile: body_schema may be the text of a JSON Schema
// (file("NAME.json")): validate type-checks the inputs with its type, and
// a body is checked against it, its properties that are not required
// optional.
func TestBodySchemaFile(t *testing.T) {
	dir := t.TempDir()
	schema := `{"type": "object", "required": ["repository"], "properties": {
  "repository": {"type": "object", "required": ["full_name"], "properties": {"full_name": {"type": "string"}, "stars": {"type": "integer"}}},
  "labels": {"type": "array", "items": {"type": "string"}},
  "note": {"type": ["string", "null"]}}}`
	flow := triggerHead + `
trigger "push" {
  webhook {
    path        = "/h"
    verify      = "none"
    body_schema = file("push.schema.json")
  }
  inputs = { repo = request.body.repository.full_name, tags = request.body.labels }
}
`
	for name, src := range map[string]string{"push.schema.json": schema, "c.flow.hcl": flow} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog, diags := compiler.Compile(filepath.Join(dir, "c.flow.hcl"), compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for body, want := range map[string]string{
		`{"repository": {"full_name": "a/b"}}`:                                            ``,
		`{"repository": {"full_name": "a/b", "stars": 3}, "labels": ["x"], "note": null}`: ``,
		`{"repository": {"stars": 3}}`:                                                    `body.repository.full_name: a string is required`,
		`{"repository": {"full_name": "a/b"}, "labels": [1]}`:                             ``, // a number converts to a string
		`{"repository": {"full_name": "a/b"}, "labels": [{"a": 1}]}`:                      `body.labels[0]: a string is required, not an object`,
	} {
		v, err := jsonval.Decode([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		_, err = compiler.CheckBody(prog.Triggers[0], v)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%s: got %q, want %q", body, got, want)
		}
	}
	// A field the schema does not declare is an error of validate.
	os.WriteFile(filepath.Join(dir, "c.flow.hcl"), []byte(strings.Replace(flow, "repository.full_name", "repository.name", 1)), 0o644)
	if _, diags := compiler.Compile(filepath.Join(dir, "c.flow.hcl"), compiler.Options{}); !strings.Contains(diags.Error(), `Unsupported attribute; This object does not have an attribute named "name"`) {
		t.Errorf("an undeclared field: %s", diags.Error())
	}
}
