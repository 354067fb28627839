package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestFlowTestSubflows: without --live, a test makes no model or network
// call in the flows its flow uses either. An unmocked llm or http step of
// a sub-flow is an error naming its path, and nothing is called; mock
// "llm" and mock "http" reach into the sub-flow, and a mock with a step
// path replaces only that step.
func TestFlowTestSubflows(t *testing.T) {
	model, modelCalls := fakeModel(t)
	t.Setenv("OPENAI_BASE_URL", model.URL)
	t.Setenv("OPENAI_API_KEY", "")
	var webCalls atomic.Int32
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		webCalls.Add(1)
		fmt.Fprint(w, "page")
	}))
	defer web.Close()

	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.flow.hcl", `flow "main" {}

step "summarize" {
  use  = "flow.chunk"
  text = "notes"
}

step "title" {
  use    = "llm"
  prompt = "A title"
}

output "summary" {
  value = step.summarize.summary
}

output "title" {
  value = step.title.text
}
`)
	write("chunk.flow.hcl", fmt.Sprintf(`flow "chunk" {}

input "text" {
  type = string
}

step "fetch" {
  use = "http"
  url = %q
}

step "ask" {
  use    = "llm"
  prompt = "Summarize ${input.text}: ${step.fetch.text}"
}

output "summary" {
  value = step.ask.text
}
`, web.URL))
	run := func(test string, args ...string) (int, string) {
		t.Helper()
		write("main.test.hcl", test)
		code, out, errOut := runCLI(t, append(append([]string{"test", "--http-allow", "127.0.0.1"}, args...), filepath.Join(dir, "main.test.hcl"))...)
		return code, out + errOut
	}
	noCalls := func(what string) {
		t.Helper()
		if n, m := webCalls.Load(), modelCalls.Load(); n != 0 || m != 0 {
			t.Fatalf("%s: the server got %d requests and the model %d", what, n, m)
		}
	}

	// Only the test's own llm step mocked, by override: the sub-flow's
	// steps are unmocked.
	code, out := run(`test "t" {
  flow = "main.flow.hcl"
  override "step.title" {
    outputs = { text = "T" }
  }
}
`)
	if code != 1 || !strings.Contains(out, "ERROR t") ||
		!strings.Contains(out, `step.summarize → flow "chunk" → step.fetch calls the network (http)`) ||
		!strings.Contains(out, `step.summarize → flow "chunk" → step.ask calls a model`) {
		t.Fatalf("unmocked sub-flow: exit %d:\n%s", code, out)
	}
	noCalls("unmocked sub-flow")

	// mock "llm" and mock "http" reach every use of the blocks in the
	// tree.
	code, out = run(`test "t" {
  flow = "main.flow.hcl"
  mock "llm" {
    outputs = { text = "Said: ${args.prompt}" }
  }
  mock "http" {
    outputs = { status = 200, text = "mocked page" }
  }
  assert {
    condition     = output.summary == "Said: Summarize notes: mocked page" && output.title == "Said: A title"
    error_message = "the sub-flow's steps are mocked"
  }
}
`)
	if code != 0 || !strings.Contains(out, "PASS t") {
		t.Fatalf("mocks: exit %d:\n%s", code, out)
	}
	noCalls("mocks")

	// A mock with a step path replaces that step only: the other llm step
	// takes the block-wide mock.
	code, out = run(`test "t" {
  flow = "main.flow.hcl"
  mock "llm" {
    outputs = { text = "any" }
  }
  mock "llm" {
    step    = "summarize.ask"
    outputs = { text = "just this one" }
  }
  mock "http" {
    step    = "summarize.fetch"
    outputs = { text = "mocked page" }
  }
  assert {
    condition     = output.summary == "just this one" && output.title == "any"
    error_message = "the path mock replaces only its step"
  }
}
`)
	if code != 0 || !strings.Contains(out, "PASS t") {
		t.Fatalf("path mocks: exit %d:\n%s", code, out)
	}
	noCalls("path mocks")

	// A path mock of one step leaves the others unmocked.
	code, out = run(`test "t" {
  flow = "main.flow.hcl"
  mock "llm" {
    step    = "summarize.ask"
    outputs = { text = "just this one" }
  }
  mock "http" {
    outputs = { text = "mocked page" }
  }
}
`)
	if code != 1 || !strings.Contains(out, `Step "title" calls a model`) || strings.Contains(out, "step.ask calls") {
		t.Fatalf("one path mock: exit %d:\n%s", code, out)
	}
	noCalls("one path mock")
}
