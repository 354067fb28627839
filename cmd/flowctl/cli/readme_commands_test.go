package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// readmeRunHere are the README's commands that TestReadmeCommands runs
// itself, as written, in a copy of examples/ with the flowctl under test
// (go run ./cmd/flowctl is that flowctl). dir is where it runs, relative
// to the copy's parent; check, when set, looks at what it did.
var readmeRunHere = []struct {
	cmd, dir string
	check    func(t *testing.T, root, out string)
}{
	{cmd: "go run ./cmd/flowctl apply --auto-approve examples/digest", check: func(t *testing.T, _, out string) {
		if !strings.Contains(out, "Run ok") {
			t.Errorf("the digest did not run:\n%s", out)
		}
	}},
	{cmd: "flowctl init triage", check: func(t *testing.T, root, _ string) {
		if _, err := os.Stat(filepath.Join(root, "triage", "hello.flow.hcl")); err != nil {
			t.Error(err)
		}
	}},
	{cmd: "cd triage && flowctl test", check: func(t *testing.T, _, out string) {
		if !strings.Contains(out, "2 passed, 0 failed") {
			t.Errorf("the project's tests:\n%s", out)
		}
	}},
	{cmd: "flowctl blocks"},
	{cmd: `flowctl blocks search "fetch a web page"`, check: func(t *testing.T, _, out string) {
		if !strings.Contains(out, "scrape") {
			t.Errorf("search does not find scrape:\n%s", out)
		}
	}},
	{cmd: "flowctl blocks show http --json"},
	{cmd: "flowctl docs examples --out examples/FLOWS.md"},
	{cmd: "flowctl docs examples --out examples/FLOWS.md --check"},
	// examples/stats-numpy is locked already, offline (lockedFirst): the
	// lock keeps what it pins and needs no index.
	{cmd: "go run ./cmd/flowctl lock examples/stats-numpy"},
	{cmd: "go run ./cmd/flowctl test examples"},
	// docs/ci.md's commands, in a repository of flows: here, examples/.
	{cmd: "flowctl fmt --check .", dir: "examples"},
	{cmd: "flowctl validate --format github .", dir: "examples"},
	{cmd: "flowctl test --junit flowctl-tests.xml .", dir: "examples", check: func(t *testing.T, root, _ string) {
		if b, err := os.ReadFile(filepath.Join(root, "examples", "flowctl-tests.xml")); err != nil || !strings.Contains(string(b), "<testsuites>") {
			t.Errorf("no JUnit report: %v", err)
		}
	}},
}

// readmeRunElsewhere are the README's commands that other tests, or CI's
// .ci/run, run: by names the function(s) that run the command (FILE:FUNC,
// from the repository's top; a script's FILE alone), and args the
// command's distinctive arguments, which must be words of the command and
// appear in what runs it (quoted, in Go). Commands that need what CI has —
// the whole test suite, a temporal dev server, n8n — are here.
var readmeRunElsewhere = []struct {
	cmd  string
	by   []string
	args []string
}{
	{"go test ./...", []string{".ci/run"}, []string{"test", "./..."}},
	{`OPENAI_API_KEY=sk-… flowctl think "Count the words of notes.txt and find the longest"`,
		[]string{"cmd/flowctl/cli/think_test.go:TestThinkCreatesBlocks"}, []string{"think", "Count the words of notes.txt and find the longest"}},
	{`OPENAI_BASE_URL=http://localhost:11434/v1 FLOWCTL_MODEL=qwen2.5-coder:14b flowctl think --no-clarify --out words.flow.hcl "Count the words of notes.txt"`,
		[]string{"cmd/flowctl/cli/think_test.go:TestThinkExampleFailsOnce"}, []string{"think", "--no-clarify", "--out", "words.flow.hcl", "Count the words of notes.txt"}},
	{`flowctl think --edit notes.flow.hcl "Also count the words"`,
		[]string{"cmd/flowctl/cli/think_edit_test.go:TestThinkEdit"}, []string{"think", "--edit", "notes.flow.hcl", "Also count the words"}},
	{"flowctl proposals", []string{"cmd/flowctl/cli/think_edit_test.go:TestThinkEdit"}, []string{"proposals"}},
	{"flowctl proposals accept ID", []string{"cmd/flowctl/cli/think_edit_test.go:TestThinkEdit"}, []string{"proposals", "accept"}},
	{"flowctl serve examples &", []string{"cmd/flowctl/cli/readme_serve_test.go:TestReadmeServe"}, []string{"examples"}},
	// The serve example's curl commands: TestReadmeServe reads them from
	// the README and runs them as written.
	{`curl -s -X POST localhost:8080/v1/flows/hello/runs -H 'Content-Type: application/json' -d '{"inputs": {"names": ["Ada"]}}'`,
		[]string{"cmd/flowctl/cli/readme_serve_test.go:TestReadmeServe"}, []string{"curl "}},
	{"curl -sN localhost:8080/v1/runs/RUN_ID/events", []string{"cmd/flowctl/cli/readme_serve_test.go:TestReadmeServe"}, []string{"curl "}},
	{`curl -s -X POST localhost:8080/v1/runs/RUN_ID/approvals/review -H 'Content-Type: application/json' -d '{"approved": true}'`,
		[]string{"cmd/flowctl/cli/readme_serve_test.go:TestReadmeServe"}, []string{"curl "}},
	{"go install github.com/temporalio/cli/cmd/temporal@v1.5.1", []string{".ci/run"}, []string{"install", "github.com/temporalio/cli/cmd/temporal@v1.5.1"}},
	{"temporal server start-dev --headless &", []string{"runtime/temporal/devserver/devserver.go:start"}, []string{"server", "start-dev", "--headless"}},
	{"go run ./cmd/flowctl worker --engine temporal examples &",
		[]string{"cmd/flowctl/cli/temporal_test.go:TestTemporalExamples", "cmd/flowctl/cli/temporal_test.go:startWorker"}, []string{"worker", "--engine", "temporal", "examples"}},
	{"go run ./cmd/flowctl apply --engine temporal --auto-approve examples/digest",
		[]string{"cmd/flowctl/cli/temporal_test.go:TestTemporalExamples"}, []string{"apply", "--engine", "temporal", "--auto-approve"}},
	{"FLOWCTL_N8N=$(.ci/install-n8n) go test -timeout 60m ./importer/n8nlive", []string{".ci/run"}, []string{"FLOWCTL_N8N", ".ci/install-n8n", "-timeout", "60m", "./importer/n8nlive"}},
	{"bash .ci/run", []string{".ci/run"}, nil},
}

// TestReadmeCommands: every command of README.md's shell code blocks
// runs in a test. The ones readmeRunHere lists run here, as written; the
// ones readmeRunElsewhere lists are run by the function it names, which
// must exist and hold the command's distinctive arguments. go test
// commands of a package (the development ones) are checked to name what
// exists — the package, the functions their -run, -bench and -fuzz
// select, the -update flag — and those functions are run by CI's go test
// (the benchmarks and fuzz targets with their seeds only, as go test
// does); go run ./bench/NAME must name a benchmark program, which CI's
// go vet builds. A command none of these cover fails, named.
func TestReadmeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's commands")
	}
	cmds := readmeShellCommands(docsFile(t, "README.md"))
	if len(cmds) < 30 {
		t.Fatalf("found %d commands in README.md's shell blocks: the test no longer finds them", len(cmds))
	}
	here := map[string]bool{}
	for _, r := range readmeRunHere {
		here[r.cmd] = true
	}
	elsewhere := map[string]int{}
	for i, r := range readmeRunElsewhere {
		elsewhere[r.cmd] = i
	}
	for _, c := range cmds {
		switch _, ok := elsewhere[c]; {
		case here[c], ok:
		case goTestCommand.MatchString(c):
			checkGoTestCommand(t, c)
		case benchCommand.MatchString(c):
			dir := "../../../" + strings.TrimPrefix(benchCommand.FindStringSubmatch(c)[1], "./")
			if b, err := os.ReadFile(filepath.Join(dir, "main.go")); err != nil || !strings.Contains(string(b), "package main") {
				t.Errorf("README.md: %s: no benchmark program there (%v)", c, err)
			}
		default:
			t.Errorf("README.md: no test runs %q: run it in TestReadmeCommands (readmeRunHere), or name the test that runs it (readmeRunElsewhere)", c)
		}
	}
	// The tables hold nothing the README no longer has.
	for _, r := range readmeRunHere {
		if !slices.Contains(cmds, r.cmd) {
			t.Errorf("readmeRunHere: README.md has no command %q", r.cmd)
		}
	}
	for _, r := range readmeRunElsewhere {
		if !slices.Contains(cmds, r.cmd) {
			t.Errorf("readmeRunElsewhere: README.md has no command %q", r.cmd)
		}
		checkRunElsewhere(t, r.cmd, r.by, r.args)
	}

	// Run readmeRunHere's commands, in order, in a copy of examples/
	// (whose stats example has python blocks).
	needPython(t)
	root := t.TempDir()
	if err := os.CopyFS(filepath.Join(root, "examples"), os.DirFS("../../../examples")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(root, "examples", "FLOWS.md"))
	entries, _ := os.ReadDir(filepath.Join(root, "examples"))
	for _, e := range entries {
		os.RemoveAll(filepath.Join(root, "examples", e.Name(), ".flowctl"))
		os.RemoveAll(filepath.Join(root, "examples", e.Name(), "flowctl.lock.hcl"))
	}
	// The examples with dependencies are locked first, offline, as
	// examples/README.md says to.
	for name, lock := range lockedFirst {
		lock(t)
		if code, out, errOut := runCLI(t, "lock", filepath.Join(root, "examples", name)); code != 0 {
			t.Fatalf("flowctl lock examples/%s: %d %s%s", name, code, out, errOut)
		}
	}
	bin := readmeFlowctl(t)
	for _, r := range readmeRunHere {
		t.Run(r.cmd, func(t *testing.T) {
			line := strings.ReplaceAll(r.cmd, "go run ./cmd/flowctl ", "flowctl ")
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-c", line)
			cmd.Dir = filepath.Join(root, r.dir)
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1",
				"FLOWCTL_STATE=", "FLOWCTL_STATE_URL=", "FLOWCTL_EMBEDDINGS_MODEL=")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("README.md's %q: %v\n%s", r.cmd, err, out)
			}
			if r.check != nil {
				r.check(t, root, string(out))
			}
		})
	}
}

// readmeFlowctl is a directory whose flowctl is this test binary as
// flowctl (TestMain), for the README's command lines.
func readmeFlowctl(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := "#!/bin/sh\nFLOWCTL_TEST_MAIN=1 exec '" + strings.ReplaceAll(exe, "'", `'\''`) + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "flowctl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// readmeShellCommands are the command lines of a Markdown text's sh code
// blocks: a line continued with \ joined to the next, its comment (after
// two spaces or more) cut.
func readmeShellCommands(md string) []string {
	var out []string
	in, cont := false, ""
	for _, l := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(l, "```sh"):
			in = true
			continue
		case strings.HasPrefix(l, "```"):
			in = false
			continue
		case !in:
			continue
		}
		if i := strings.Index(l, "  #"); i >= 0 {
			l = l[:i]
		}
		l = strings.TrimSpace(l)
		if strings.HasSuffix(l, `\`) {
			cont += strings.TrimSpace(strings.TrimSuffix(l, `\`)) + " "
			continue
		}
		l, cont = cont+l, ""
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

var (
	goTestCommand = regexp.MustCompile(`^go test (\./\S*)(.*)$`)
	benchCommand  = regexp.MustCompile(`^go run (\./bench/[a-z]+)(?: .*)?$`)
)

// checkGoTestCommand checks that a go test command names what exists:
// the package, its test files, the functions -run, -bench and -fuzz
// select, and the -update flag. CI's go test runs those functions.
func checkGoTestCommand(t *testing.T, c string) {
	t.Helper()
	m := goTestCommand.FindStringSubmatch(c)
	if m[1] == "./..." {
		t.Errorf("README.md: %s: not in readmeRunElsewhere", c)
		return
	}
	dir := "../../../" + strings.TrimPrefix(m[1], "./")
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if len(files) == 0 {
		t.Errorf("README.md: %s: %s has no tests", c, m[1])
		return
	}
	var src strings.Builder
	for _, f := range files {
		b, _ := os.ReadFile(f)
		src.Write(b)
	}
	text := src.String()
	fields := strings.Fields(m[2])
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		next := func() string {
			if i+1 < len(fields) {
				i++
				return strings.Trim(fields[i], `'"`)
			}
			return ""
		}
		kind := map[string]string{"-run": "Test", "-bench": "Benchmark", "-fuzz": "Fuzz"}[f]
		switch {
		case kind != "":
			pattern := next()
			if pattern == "^$" {
				continue
			}
			re, err := regexp.Compile(pattern)
			if err != nil {
				t.Errorf("README.md: %s: %s %q: %v", c, f, pattern, err)
				continue
			}
			found := false
			for _, fm := range regexp.MustCompile(`(?m)^func (`+kind+`\w*)\(`).FindAllStringSubmatch(text, -1) {
				if re.MatchString(fm[1]) {
					found = true
				}
			}
			if !found {
				t.Errorf("README.md: %s: %s %s selects no %s function in %s", c, f, pattern, kind, m[1])
			}
		case f == "-update":
			if !strings.Contains(text, `flag.Bool("update"`) {
				t.Errorf("README.md: %s: the tests of %s have no -update flag", c, m[1])
			}
		case f == "-fuzztime" || f == "-timeout":
			next()
		}
	}
}

// checkRunElsewhere checks that the functions (or script) by name run the
// command c: each exists, and together they hold each of args, which are
// words of c. A flag of c must be among args.
func checkRunElsewhere(t *testing.T, c string, by, args []string) {
	t.Helper()
	words := shellWords(c)
	for _, w := range words {
		if strings.HasPrefix(w, "-") && !slices.Contains(args, w) && !strings.HasPrefix(c, "curl ") {
			t.Errorf("readmeRunElsewhere: %q: its flag %s is not among the arguments checked", c, w)
		}
	}
	for _, a := range args {
		if !strings.Contains(c, a) {
			t.Errorf("readmeRunElsewhere: %q has no argument %q", c, a)
		}
	}
	var bodies strings.Builder
	goSource := false
	for _, b := range by {
		file, fn, isFunc := strings.Cut(b, ":")
		src, err := os.ReadFile("../../../" + file)
		if err != nil {
			t.Errorf("readmeRunElsewhere: %q: %v", c, err)
			continue
		}
		if !isFunc {
			bodies.Write(src)
			continue
		}
		goSource = true
		body := funcBody(string(src), fn)
		if body == "" {
			t.Errorf("readmeRunElsewhere: %q: %s has no function %s", c, file, fn)
		}
		bodies.WriteString(body)
	}
	for _, a := range args {
		want := a
		if goSource && !strings.HasSuffix(a, " ") {
			want = `"` + a + `"`
		}
		if !strings.Contains(bodies.String(), want) {
			t.Errorf("readmeRunElsewhere: %q: %s does not hold %s", c, strings.Join(by, ", "), want)
		}
	}
}

// funcBody is the source of the function (or method) name in a Go file:
// from its func line to the next top-level declaration.
func funcBody(src, name string) string {
	loc := regexp.MustCompile(`(?m)^func (?:\([^)]*\) )?` + regexp.QuoteMeta(name) + `\(`).FindStringIndex(src)
	if loc == nil {
		return ""
	}
	rest := src[loc[0]:]
	if end := regexp.MustCompile(`(?m)^\}`).FindStringIndex(rest); end != nil {
		return rest[:end[1]]
	}
	return rest
}

// shellWords splits a command line into words, keeping quoted ones
// whole.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	quote := rune(0)
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}
