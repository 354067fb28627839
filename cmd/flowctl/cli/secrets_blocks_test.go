package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// blockSecrets hold what the runtimes escape when they print a string:
// both quotes, backslashes, a newline, a tab and a carriage return,
// non-ASCII letters, a character outside the BMP, and characters that
// are not printable (a no-break space, a zero-width space). Each line of
// each holds a word of four or more letters and digits that no escaping
// changes and no message holds otherwise: those words must not be seen.
var blockSecrets = []string{
	`Pa'ss"w0rdQ7-XYZk`,
	`bAck\sl4sh\\Bq9zend`,
	"Nl1neQ\nSec0ndRow\tT4bx\rCRq8",
	"ünïcödé€Zq4w💥f1nX",
	"nb\u00a0Sp4cez\u200bZw1dth",
	"a'b\"c\\d\nK3yz€\x01Ctl7",
}

// markers are the words of four or more ASCII letters and digits in s.
func markers(s string) []string {
	return regexp.MustCompile(`[A-Za-z0-9]{4,}`).FindAllString(s, -1)
}

// TestSecretInBlockCode runs code blocks of every runtime (go interpreted
// and compiled, js, python) that print a secret in each way the language
// prints a string (as it is, quoted, escaped, as JSON, inside lists and
// maps) and fail with it in an error, a panic or an exception (a Python
// KeyError shows the key's repr), and looks for the secret on stdout and
// stderr of apply (for people, -v and --json, in sandbox workers and in
// process), runs show, runs logs, and in every byte of the state.
func TestSecretInBlockCode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs sandbox workers and builds a program")
	}
	needPython(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("compiled go blocks need the Go toolchain on PATH")
	}
	for i, secret := range blockSecrets {
		t.Run(strconv.Itoa(i), func(t *testing.T) { testSecretInBlockCode(t, secret) })
	}
}

const goLeaky = `
    package block

    import (
      "context"
      "encoding/json"
      "errors"
      "fmt"
      "strconv"
    )

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      s := input["s"].(string)
      j, _ := json.Marshal(s)
      m, _ := json.Marshal(map[string]any{"k": []string{s}})
      println("raw", s)
      println(fmt.Sprintf("q %q +q %+q #q %#q v %v", s, s, s, []string{s}))
      println(strconv.Quote(s), strconv.QuoteToASCII(s), strconv.QuoteToGraphic(s), string(j), string(m))
      println(fmt.Sprintf("%#v %#v", map[string]string{"k": s}, []any{s}))
      mode, _ := input["mode"].(string)
      switch mode {
      case "panic":
        panic("no key " + s)
      case "panic_q":
        panic(fmt.Sprintf("no key %q", s))
      case "error_q":
        return nil, fmt.Errorf("no key %q (%+q) %s", s, s, j)
      }
      return nil, errors.New("no key " + s)
    }
`

const jsLeaky = `
    function execute(input) {
      const s = input.s
      console.log("raw", s, String(s), JSON.stringify(s), JSON.stringify([s]), [s, s].join("|"))
      console.log({k: s}, [s], ` + "`t $${s}`" + `)
      switch (input.mode) {
      case "throw_json": throw new Error("no key " + JSON.stringify({k: s}))
      case "throw_string": throw s
      case "type_error": return null[s]
      }
      throw new Error("no key " + s)
    }
`

const pyLeaky = `
    import json

    def execute(input, ctx):
        s = input["s"]
        print("raw", s)
        print(repr(s), ascii(s), [s], {"k": s}, (s,), f"{s!r} {s!a}")
        print(json.dumps(s), json.dumps(s, ensure_ascii=False), json.dumps({"k": [s]}))
        print(repr('"' + s), repr("'" + s), repr(s.encode()), s.encode())
        ctx.logger.info("key %r %s", s, s)
        mode = input["mode"]
        if mode == "key":
            return {}[s]
        if mode == "int":
            return {"n": int(s)}
        if mode == "repr":
            raise ValueError([s, "'", '"'])
        raise RuntimeError("no key " + s)
`

func testSecretInBlockCode(t *testing.T, secret string) {
	dir := t.TempDir()
	var flow strings.Builder
	flow.WriteString("flow \"leaky\" {}\n\nsecret \"tok\" {}\n")
	block := func(name, runtime, extra, source, tag string) {
		fmt.Fprintf(&flow, "\nblock %q {\n  runtime = %q\n%s  input \"s\" { type = string }\n  input \"mode\" { type = string }\n  output \"n\" {\n    type     = number\n    optional = true\n  }\n  source = <<-%s\n%s  %s\n}\n",
			name, runtime, extra, tag, source, tag)
	}
	block("go_leaky", "go", "", goLeaky, "GO")
	block("go_compiled_leaky", "go", "  engine  = \"compiled\"\n", goLeaky, "GO")
	block("js_leaky", "js", "", jsLeaky, "JS")
	block("py_leaky", "python", "", pyLeaky, "PY")
	var steps []string
	for _, s := range []struct{ block, modes string }{
		{"go_leaky", "error panic panic_q error_q"},
		{"go_compiled_leaky", "error panic panic_q error_q"},
		{"js_leaky", "error throw_json throw_string type_error"},
		{"py_leaky", "error key int repr"},
	} {
		for _, mode := range strings.Fields(s.modes) {
			name := s.block + "_" + mode
			steps = append(steps, name)
			fmt.Fprintf(&flow, "\nstep %q {\n  use      = %q\n  s        = secret.tok\n  mode     = %q\n  on_error = \"continue\"\n}\n", name, s.block, mode)
		}
	}
	path := filepath.Join(dir, "leaky.flow.hcl")
	if err := os.WriteFile(path, []byte(flow.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var streams [][]byte
	var runID string
	for _, args := range [][]string{
		{"apply", "--auto-approve", "-v", "--sandbox", "inprocess", path},
		{"apply", "--auto-approve", "-v", path},
		{"apply", "--auto-approve", "--json", path},
	} {
		args = append(args, "--no-cache", "--secret", "tok="+secret)
		code, out, errOut := runIn(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
		for _, line := range strings.Split(out, "\n") {
			var e struct {
				RunID string `json:"run_id"`
			}
			if json.Unmarshal([]byte(line), &e) == nil && e.RunID != "" {
				runID = e.RunID
			}
		}
		streams = append(streams, []byte(out), []byte(errOut))
	}
	for _, args := range [][]string{
		{"runs", "show", runID, "--flow", path},
		{"runs", "show", runID, "--json", "--flow", path},
		{"runs", "logs", runID, "--flow", path},
		{"runs", "logs", runID, "--json", "--flow", path},
	} {
		_, out, errOut := runIn(args...)
		streams = append(streams, []byte(out), []byte(errOut))
	}
	all := string(bytes.Join(streams, nil))
	for _, step := range steps {
		if !strings.Contains(all, `"step":"`+step+`","instance":null,"status":"failed"`) {
			t.Errorf("step %s did not fail", step)
		}
	}
	for _, want := range []string{"KeyError: '(sensitive)'", "(sensitive)"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q in the output", want)
		}
	}
	forms := secretForms(secret)
	for _, m := range markers(secret) {
		forms["word "+m] = m
	}
	assertNoSecretForms(t, forms, streams, filepath.Join(dir, ".flowctl"))
}
