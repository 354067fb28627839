package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unrecordedFlow's first step succeeds with a log line holding a NUL
// byte, which PostgreSQL refuses in TEXT (SQLSTATE 22021) where SQLite
// takes it: its result cannot be recorded there. Its dependant calls the
// counter.
const unrecordedFlow = `
flow "unrecorded" {}

input "base" {
  type = string
}

input "tag" {
  type = string
}

block "noisy" {
  runtime = "js"
  output "v" {
    type = string
  }
  source = "function execute(input) { console.log('a NUL: \u0000.'); return { v: 'done' } }"
}

step "first" {
  use   = "noisy"
  cache = false
}

step "after" {
  use = "http"
  url = "${input.base}/hit?k=${input.tag}-after-${step.first.v}"
}
`

// testUnrecordedResult: a served run whose step succeeded but whose
// result the state refused for good (a constraint, not a full disk)
// starts none of that step's dependants, and ends failed saying why:
// never ok, never left running.
func testUnrecordedResult(t *testing.T, url string) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "unrecorded.flow.hcl"), []byte(unrecordedFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	ctr := newCounter(t, 0)
	s := serve(t, dir, faultEnv(url), "--state", url)
	calls := 0
	for i := range 5 {
		tag := fmt.Sprintf("unrec%d", i)
		id := s.start(t, "unrecorded", fmt.Sprintf(`{"base": %q, "tag": %q}`, ctr.srv.URL, tag))
		status, msg := waitEnded(t, s, id)
		if status != "failed" || !strings.Contains(msg, "could not be recorded") || !strings.Contains(msg, "22021") {
			t.Errorf("run %s, whose first step's result cannot be recorded: %q %s; want failed, saying the result could not be recorded and why", id, status, msg)
		}
		n, _, _ := ctr.calls(tag + "-")
		calls += n
		if n != 0 {
			t.Errorf("run %s: the dependant of a step whose result could not be recorded was called %d times; want 0", id, n)
		}
	}
	t.Logf("faults: unrecorded results: 5 runs whose first step's result PostgreSQL refused (22021); %d dependants called", calls)
}
