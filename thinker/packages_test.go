package thinker

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	decomposePython = `{"blocks": [
		{"id": "count_words", "description": "Count the words of a text", "runtime": "python",
		 "inputs": [{"name": "text", "type": "string", "description": "The text"}],
		 "outputs": [{"name": "count", "type": "number", "description": "How many words"}]}]}`
	createWithPackage = `{"id": "count_words", "description": "Count the words of a text", "runtime": "python",
		"source": "import regex\n\ndef execute(input, ctx):\n    return {\"count\": len(regex.findall(r\"\\w+\", input[\"text\"]))}\n",
		"prompt": null, "requirements": ["regex>=2024.1"],
		"inputs": [{"name": "text", "type": "string", "description": "The text"}],
		"outputs": [{"name": "count", "type": "number", "description": "How many words"}],
		"example": {"input": {"text": "one two  three"}, "output": {"count": 3}}}`
)

// TestThinkAllowPackages: without AllowPackages (think's default) the
// create stage's schema and prompt have no requirements, and a reply that
// gives a block requirements fails its check with "Packages not allowed"
// (and nothing else); with it, the schema and prompt offer them, and the block is
// written with its requirements, its example not run until they are
// locked.
func TestThinkAllowPackages(t *testing.T) {
	for _, allow := range []bool{false, true} {
		dir := t.TempDir()
		// Without packages, the specification leaves the runtime to the
		// block (js, which runs here), and the second reply has none.
		decompose, replies := decomposeNotes, []string{createWithPackage, createCountWords}
		if allow {
			decompose, replies = decomposePython, replies[:1]
		}
		m := newFakeModel(map[string][]string{
			StageDecompose:   {decompose},
			StageCreateBlock: replies,
			StageWire:        {wire("step.read.text")},
		})
		var failed []BlockTestFailed
		var created []BlockCreated
		_, err := Think(context.Background(), Options{
			Intent: "count", Model: m, Dir: dir, Executors: testExecutors(), NoClarify: true, AllowPackages: allow,
			Observe: func(e Event) {
				switch e := e.(type) {
				case BlockTestFailed:
					failed = append(failed, e)
				case BlockCreated:
					created = append(created, e)
				}
			},
		})
		if err != nil {
			t.Fatalf("allow %v: %v; failed %+v", allow, err, failed)
		}
		req := m.requestsFor(StageCreateBlock)[0]
		if got := strings.Contains(string(req.Schema), `"requirements"`); got != allow {
			t.Errorf("allow %v: the schema offers requirements: %v", allow, got)
		}
		if got := strings.Contains(req.System, "Packages: a python block may also import PyPI packages"); got != allow {
			t.Errorf("allow %v: the prompt offers packages: %v", allow, got)
		}
		src, err := os.ReadFile(filepath.Join(dir, "blocks", "count_words.block.hcl"))
		if err != nil {
			t.Fatal(err)
		}
		if !allow {
			if len(failed) != 1 || failed[0].Phase != PhaseCheck || !strings.HasPrefix(failed[0].Error, "Packages not allowed: ") ||
				strings.Contains(failed[0].Error, "; ") {
				t.Fatalf("without packages, failures: %+v", failed)
			}
			if len(created) != 1 || created[0].Tries != 2 || !created[0].Tested || strings.Contains(string(src), "requirements") {
				t.Fatalf("without packages, created %+v:\n%s", created, src)
			}
			continue
		}
		if len(failed) != 0 || len(created) != 1 || created[0].Tested || !strings.Contains(created[0].Note, "requirements are not locked yet") {
			t.Fatalf("with packages: failed %+v created %+v", failed, created)
		}
		if !strings.Contains(string(src), `requirements = ["regex>=2024.1"]`) {
			t.Fatalf("the block file:\n%s", src)
		}
	}
}
