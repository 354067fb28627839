package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
)

// needPython skips a test without a python interpreter, except in CI.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := pyrun.Find(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs python: %v", err)
		}
		t.Skip(err)
	}
}

// TestThinkPythonBlocks: with --runtime python the model is asked for
// python code blocks only; the created block's example runs in the python
// sandbox, and the flow runs.
func TestThinkPythonBlocks(t *testing.T) {
	needPython(t)
	dir := thinkDir(t)
	count := strings.Replace(decomposeCount, `"runtime": "js"`, `"runtime": "python"`, 1)
	source := "import re\n\ndef execute(input, ctx):\n    return {\"count\": len(re.findall(r\"\\S+\", input[\"text\"]))}\n"
	srv := newThinkServer(t, map[string][]string{
		"decompose":    {decompose(count)},
		"create_block": {createReply("count_words", "python", source, `{"input": {"text": "a bb  ccc"}, "output": {"count": 3}}`)},
		"wire": {wireReply("note_stats", []string{`read file path="notes.txt"`, `count count_words text=step.read.text`},
			"count=step.count.count")},
	})
	code, out, errOut := runCLI(t, "think", "--no-clarify", "--runtime", "python", "Count the words of notes.txt")
	if code != 0 {
		t.Fatalf("think exited %d:\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "✓ count_words: its example passed") {
		t.Errorf("output:\n%s", out)
	}
	dec := srv.recorded("decompose")
	if len(dec) != 1 {
		t.Fatalf("%d decompose requests", len(dec))
	}
	var sch struct {
		Properties struct {
			Blocks struct {
				Items struct {
					Properties struct {
						Runtime struct {
							Enum []string `json:"enum"`
						} `json:"runtime"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"blocks"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(dec[0].ResponseFormat.JSONSchema.Schema, &sch); err != nil {
		t.Fatal(err)
	}
	if got := sch.Properties.Blocks.Items.Properties.Runtime.Enum; !slices.Equal(got, []string{"python", "llm"}) {
		t.Errorf("the decompose schema's runtimes: %q", got)
	}
	if !strings.Contains(dec[0].Messages[0].Content, `Write every block of deterministic code with runtime "python"`) {
		t.Errorf("the decompose system message does not say the preference")
	}
	create := srv.recorded("create_block")
	if len(create) != 1 || !strings.Contains(create[0].Messages[0].Content, "python: the source is Python 3.11") ||
		!strings.Contains(create[0].Messages[0].Content, pyrun.Listing()) {
		t.Errorf("the create_block system message does not describe python blocks and their modules")
	}
	b, err := os.ReadFile(filepath.Join(dir, "blocks", "count_words.block.hcl"))
	if err != nil || !regexp.MustCompile(`runtime\s*=\s*"python"`).Match(b) {
		t.Fatalf("the created block:\n%s (%v)", b, err)
	}
	if outputs := applyOutputs(t, "note_stats.flow.hcl"); outputs["count"] != 6.0 {
		t.Errorf("outputs: %v", outputs)
	}
	if code, _, errOut := runCLI(t, "think", "--runtime", "ruby", "x"); code != 2 || !strings.Contains(errOut, `unknown --runtime "ruby"`) {
		t.Errorf("think --runtime ruby: exit %d, %s", code, errOut)
	}
}

// TestThinkDoesNotRunCreatedCodeUnconfined: where the sandbox cannot
// confine python workers, the example of a python block the model wrote
// is not run, --unconfined or not (unconfined, it could reach any host and
// the user's files): the block is written untested, saying why.
func TestThinkDoesNotRunCreatedCodeUnconfined(t *testing.T) {
	needPython(t)
	thinkDir(t)
	t.Setenv("FLOWCTL_TEST_UNCONFINABLE", "1") // this test binary takes the system for one that cannot confine
	count := strings.Replace(decomposeCount, `"runtime": "js"`, `"runtime": "python"`, 1)
	source := "import re\n\ndef execute(input, ctx):\n    return {\"count\": len(re.findall(r\"\\S+\", input[\"text\"]))}\n"
	newThinkServer(t, map[string][]string{
		"decompose":    {decompose(count)},
		"create_block": {createReply("count_words", "python", source, `{"input": {"text": "a bb  ccc"}, "output": {"count": 3}}`)},
		"wire": {wireReply("note_stats", []string{`read file path="notes.txt"`, `count count_words text=step.read.text`},
			"count=step.count.count")},
	})
	code, out, errOut := runCLI(t, "think", "--no-clarify", "--runtime", "python", "--unconfined", "--json", "Count the words of notes.txt")
	if code != 0 {
		t.Fatalf("think exited %d:\n%s%s", code, out, errOut)
	}
	events := thinkEvents(t, out)
	if e := findEvent(events, "block_test_passed"); e != nil {
		t.Errorf("the example was run: %v", e)
	}
	created := findEvent(events, "block_created")
	if created == nil || created["tested"] != false ||
		!strings.Contains(fmt.Sprint(created["note"]), "its example was not run: python blocks cannot be confined on") ||
		!strings.Contains(fmt.Sprint(created["note"]), "code a model wrote is not run unconfined") {
		t.Fatalf("block_created: %v", created)
	}
	if _, err := os.Stat(filepath.Join("blocks", "count_words.block.hcl")); err != nil {
		t.Error(err)
	}
}
