package runtime

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"

	"github.com/flowctl/flowctl/runtime/state"
)

// TestSecretCacheKeySalted: the cache key of a step with a sensitive
// argument is an HMAC under the state's own random salt: the same step
// and secret have another key in another state, neither is the plain hash
// the key of the same arguments without a secret is, and the result is
// still reused within a state (and planned as cached).
func TestSecretCacheKeySalted(t *testing.T) {
	const flow = `
flow "salted" {}

secret "tok" {
  env = "TOKEN"
}

step "read" {
  use  = "file"
  path = SOURCE
}
`
	files := map[string]string{"a.txt": "hello"}
	progs := map[string]*compiler.Program{
		"secret": compileFiles(t, "f.flow.hcl", strings.Replace(flow, "SOURCE", `secret.tok == "" ? "none" : "a.txt"`, 1), files),
		"plain":  compileFiles(t, "f.flow.hcl", strings.Replace(flow, "SOURCE", `"a.txt"`, 1), files),
	}
	env := func(k string) (string, bool) { return "hunter2", k == "TOKEN" }

	keyIn := func(st *state.Store, prog string, want Status) string {
		t.Helper()
		res, rec := apply(t, progs[prog], Options{Store: st, LookupEnv: env})
		if res.Status != StatusOK {
			t.Fatalf("status %s", res.Status)
		}
		if got := rec.finished()["read"].Status; got != want {
			t.Fatalf("read: %s, want %s", got, want)
		}
		steps, err := st.Steps(res.RunID)
		if err != nil || len(steps) != 1 || steps[0].CacheKey == "" {
			t.Fatalf("steps %v, %v", steps, err)
		}
		return steps[0].CacheKey
	}
	a, b := openStore(t), openStore(t)
	keyA := keyIn(a, "secret", StatusOK)
	if again := keyIn(a, "secret", StatusCached); again != keyA {
		t.Errorf("the key changed within a state: %s, then %s", keyA, again)
	}
	keyB := keyIn(b, "secret", StatusOK)
	plain := keyIn(b, "plain", StatusOK)
	if keyA == keyB || keyA == plain || keyB == plain {
		t.Errorf("keys: state a %s, state b %s, unsalted %s", keyA, keyB, plain)
	}
	if plainA := keyIn(a, "plain", StatusOK); plainA != plain {
		t.Errorf("a key without a secret differs across states: %s, %s", plainA, plain)
	}
	// A second salt read is the same salt.
	s1, err1 := a.CacheSalt()
	s2, err2 := a.CacheSalt()
	if err1 != nil || err2 != nil || len(s1) != 32 || string(s1) != string(s2) {
		t.Errorf("salts %x, %x (%v, %v)", s1, s2, err1, err2)
	}
	in, _ := progs["secret"].ResolveInputs(nil)
	plan, diags := Plan(progs["secret"], Options{Store: a, LookupEnv: env, Inputs: in})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := plan.Steps[0].Action; got != compiler.ActionCached {
		t.Errorf("plan: %s", got)
	}
}
