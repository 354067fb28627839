package pyrun

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// needPython skips a test without an interpreter, except in CI.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := Find(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs python: %v", err)
		}
		t.Skip(err)
	}
}

// pyDef writes a flow file with block "p" of the given code, whose first
// line is line 4 of the file, and returns the definition.
func pyDef(t *testing.T, code string) *lang.BlockDef {
	t.Helper()
	var b strings.Builder
	b.WriteString("block \"p\" {\n  runtime = \"python\"\n  source = <<-PY\n")
	for _, l := range strings.Split(code, "\n") {
		b.WriteString("    " + l + "\n")
	}
	b.WriteString("  PY\n}\n")
	path := filepath.Join(t.TempDir(), "flow.hcl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	bs, diags := blocks.ParseBlocks([]byte(b.String()), path)
	if diags.HasErrors() || len(bs) != 1 {
		t.Fatal(diags)
	}
	return bs[0].Def
}

type wantDiag struct {
	summary string
	detail  string // a regexp
	line    int    // of the flow file
	col     int    // 0: not checked
}

func TestCheck(t *testing.T) {
	needPython(t)
	for _, tc := range []struct {
		name string
		code string
		want []wantDiag
	}{
		{"ok", "import json\nfrom collections import Counter\nimport urllib.parse\nfrom io import StringIO\ndef execute(input, ctx):\n    return {}", nil},
		{"async", "import asyncio\nasync def execute(inputs, context):\n    await asyncio.sleep(0)\n    return {}", nil},
		{"defaults", "def execute(input, ctx=None, *rest):\n    return {}", nil},
		{"assigned", "def run(a, b):\n    return {}\nexecute = run", nil},
		{"syntax", "def execute(input, ctx):\n    return {'a': 1,,}", []wantDiag{
			{"Invalid Python", `^Block "p": SyntaxError: .*\(line 2 of its code\)\.$`, 5, 24}}},
		{"forbidden", "import json, os\nfrom subprocess import run\nimport urllib.request\ndef execute(input, ctx):\n    return {}", []wantDiag{
			{"Forbidden import", `The code imports os, which a python block cannot use\. A python block can import only these modules: json, math, .*io\.StringIO, io\.BytesIO, and the packages its requirements argument declares once flowctl lock pins them\. A block gets its data`, 4, 18},
			{"Forbidden import", `imports from subprocess import run,`, 5, 5},
			{"Forbidden import", `imports urllib\.request,`, 6, 12},
		}},
		{"io", "import io\nfrom io import StringIO, open\ndef execute(input, ctx):\n    return {}", []wantDiag{
			{"Forbidden import", `imports io,`, 4, 12},
			{"Forbidden import", `imports from io import StringIO, open,`, 5, 5},
		}},
		{"dynamic", "def execute(input, ctx):\n    return {'m': __import__('ctypes'), 'n': __import__(input['x'])}", []wantDiag{
			{"Forbidden import", `imports ctypes,`, 5, 0},
			{"Forbidden import", `not a string literal`, 5, 0},
		}},
		{"relative", "from . import x\ndef execute(input, ctx):\n    return {}", []wantDiag{{"Forbidden import", `relative import \(from \. import …\)`, 4, 5}}},
		{"asyncio", "import asyncio as aio\nasync def execute(input, ctx):\n    await aio.open_connection('x', 80)\n    return {}", []wantDiag{
			{"Forbidden asyncio API", `asyncio\.open_connection is not available`, 6, 15}}},
		{"missing", "def run(input, ctx):\n    return {}", []wantDiag{{"Missing execute function", `does not define execute`, 1, 1}}},
		{"arity", "def execute(input):\n    return {}", []wantDiag{
			{"Wrong execute signature", `^Block "p": def execute\(input\) cannot be called with two arguments; a python block defines def execute\(input, ctx\)`, 4, 5}}},
		{"arity3", "async def execute(a, b, c):\n    return {}", []wantDiag{{"Wrong execute signature", `async def execute\(a, b, c\)`, 4, 5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			def := pyDef(t, tc.code)
			checkDiags(t, Check([]*lang.BlockDef{def}), tc.want)
		})
	}
}

func checkDiags(t *testing.T, got hcl.Diagnostics, want []wantDiag) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d diagnostics, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		d := got[i]
		if d.Summary != w.summary || !regexp.MustCompile(w.detail).MatchString(d.Detail) {
			t.Errorf("diagnostic %d: %q: %q, want %q: /%s/", i, d.Summary, d.Detail, w.summary, w.detail)
		}
		if d.Subject == nil || d.Subject.Start.Line != w.line || (w.col > 0 && d.Subject.Start.Column != w.col) {
			t.Errorf("diagnostic %d (%s) at %v, want line %d column %d", i, d.Summary, d.Subject, w.line, w.col)
		}
	}
}

// TestCheckWithoutPython: without an interpreter a python block is an
// error at its runtime argument, which says what to do.
func TestCheckWithoutPython(t *testing.T) {
	t.Setenv(EnvPython, filepath.Join(t.TempDir(), "no-python"))
	_, err := find()
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "python blocks need python3 (3.11+) on PATH or FLOWCTL_PYTHON; none was found") {
		t.Fatalf("find: %v", err)
	}
	// An interpreter too old for python blocks.
	old := filepath.Join(t.TempDir(), "python3")
	script := "#!/bin/sh\necho '{\"executable\": \"/usr/bin/python3.9\", \"version\": [3, 9, 2], \"path\": [], \"tzpath\": []}'\ncat >/dev/null\n"
	if err := os.WriteFile(old, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvPython, old)
	if _, err := find(); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "is Python 3.9.2") {
		t.Fatalf("find: %v", err)
	}
}

func TestAllowed(t *testing.T) {
	for _, tc := range []struct {
		module string
		names  []string
		ok     bool
	}{
		{"json", nil, true}, {"collections.abc", nil, true}, {"json.decoder", []string{"JSONDecodeError"}, true},
		{"urllib.parse", nil, true}, {"urllib", []string{"parse"}, true}, {"urllib", nil, false},
		{"urllib", []string{"parse", "request"}, false}, {"urllib.request", nil, false},
		{"io", nil, false}, {"io", []string{"StringIO", "BytesIO"}, true}, {"io", []string{"open"}, false},
		{"asyncio", nil, true}, {"asyncio", []string{"gather"}, true}, {"asyncio", []string{"create_subprocess_exec"}, false},
		{"asyncio.subprocess", nil, false}, {"os", nil, false}, {"sys", nil, false}, {"importlib", nil, false},
		{"ctypes", nil, false}, {"socket", nil, false}, {"subprocess", nil, false}, {"gc", nil, false},
		{"builtins", nil, false}, {"threading", nil, false},
	} {
		if got := Allowed(tc.module, tc.names); got != tc.ok {
			t.Errorf("Allowed(%q, %q) = %v, want %v", tc.module, tc.names, got, tc.ok)
		}
	}
}

// TestDocsListTheAllowlist: docs/language.md lists exactly the modules the
// code allows, with their notes.
func TestDocsListTheAllowlist(t *testing.T) {
	b, err := os.ReadFile("../../../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "<!-- python allowlist -->\n")
	if !ok {
		t.Fatal("docs/language.md has no <!-- python allowlist --> marker")
	}
	list, _, _ := strings.Cut(after, "\n\n")
	var got []string
	for _, line := range strings.Split(list, "\n") {
		got = append(got, strings.TrimPrefix(line, "- "))
	}
	var want []string
	for _, m := range Modules {
		item := "`" + m.Name + "`"
		if m.Members != nil {
			item = "`" + m.Name + "`: only " + strings.Join(m.Members, " and ")
		}
		if m.Note != "" {
			item += ": " + m.Note
		}
		want = append(want, item)
	}
	if !slices.Equal(got, want) {
		t.Errorf("docs/language.md lists\n%s\nthe code allows\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestFinish(t *testing.T) {
	def := &lang.BlockDef{Name: "p", SourceLine: 10}
	fields := []*lang.Field{
		{Name: "mean", Type: lang.TypeSpec{Type: cty.Number}},
		{Name: "tags", Type: lang.TypeSpec{Type: cty.List(cty.String)}},
	}
	out := func(m map[string]string) map[string]json.RawMessage {
		r := map[string]json.RawMessage{}
		for k, v := range m {
			r[k] = json.RawMessage(v)
		}
		return r
	}
	res, err := Finish(def, Reply{Outputs: out(map[string]string{"mean": "2.5", "tags": `["a"]`, "extra": "1"})}, fields)
	if err != nil || len(res.Outputs) != 2 || !res.Outputs["tags"].RawEquals(cty.ListVal([]cty.Value{cty.StringVal("a")})) {
		t.Fatalf("%v %v", res, err)
	}
	for _, tc := range []struct {
		reply Reply
		want  string
	}{
		{Reply{Outputs: out(map[string]string{"mean": `"abc"`, "tags": `[]`})}, `block "p": output "mean" must be a number, not "abc" (str): a number is required`},
		{Reply{Outputs: out(map[string]string{"mean": `1`, "tags": `{"a": 1}`})}, `block "p": output "tags" must be of type list(string), not {"a": 1} (dict): list of string required`},
		{Reply{Outputs: out(map[string]string{"mean": `1`})}, `block "p": execute returned no output "tags"`},
		{Reply{Error: "ValueError: boom", Line: 12}, `block "p" line 12: ValueError: boom`},
		{Reply{Error: "out of memory", Kind: "memory"}, `block "p" exceeded its memory limit`},
		{Reply{Error: "exceeded its timeout", Timeout: true, Line: 11}, `block "p" line 11: exceeded its timeout`},
	} {
		_, err := Finish(def, tc.reply, fields)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Finish(%+v) = %v, want %s", tc.reply, err, tc.want)
		}
	}
}

// TestWorkerCache: what a worker needs is kept under the cache directory
// and read back by the next process (the once of this one is reset), and
// not once a file it names is gone.
func TestWorkerCache(t *testing.T) {
	needPython(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	interp, _ := Find()
	workerOnce = struct {
		sync.Once
		w   *Worker
		err error
	}{}
	w, err := interp.Worker()
	if err != nil {
		t.Fatal(err)
	}
	if w.Code == "" || len(w.Files) == 0 || len(w.Dirs) == 0 {
		t.Fatalf("worker without code, files or directories: %q %d %d", w.Code, len(w.Files), len(w.Dirs))
	}
	if args := w.Args(RunnerConfig{}); args[len(args)-1] != w.Code {
		t.Errorf("the command line does not end with the code's file: %q", args[len(args)-1])
	}
	path := workerCachePath(interp)
	got := loadWorker(path)
	if got == nil {
		t.Fatalf("nothing kept at %s", path)
	}
	b1, _ := json.Marshal(got)
	b2, _ := json.Marshal(w)
	if string(b1) != string(b2) {
		t.Fatalf("kept %s\nwant %s", b1, b2)
	}
	code, _ := os.ReadFile(w.Code)
	os.WriteFile(w.Code, append(code, 0), 0o644)
	if loadWorker(path) != nil {
		t.Fatal("a description whose code file changed was used")
	}
	os.WriteFile(w.Code, code, 0o644)
	if loadWorker(path) == nil {
		t.Fatal("the description was not used again")
	}
	got.Files = append(got.Files, filepath.Join(t.TempDir(), "gone.so"))
	saveWorker(path, got)
	if loadWorker(path) != nil {
		t.Fatal("a description naming a file that is gone was used")
	}
}
