package n8n

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/dop251/goja"
)

// The text splitter block's code gives the chunks langchain's splitters
// give n8n: the expected chunks are those of @langchain/textsplitters
// 1.0.1 (n8n 2.8.4's) for the same text and parameters — the recursive
// splitter as n8n's Recursive Character Text Splitter node makes it
// (separators dropped), as the Default Data Loader's simple mode makes it
// (separators kept), and the Character Text Splitter with "\n" — counting
// an emoji as two characters, as JavaScript does.
func TestSplitterJSAsLangchain(t *testing.T) {
	text := "# Heat\n\nA heist in Los Angeles. The crew of Neil McCauley plans one last score.\nDetective Vincent Hanna is on their trail.\n\nSupercalifragilisticexpialidocious-words-without-spaces and 🎬 emoji 🎬 here."
	recursive := []string{"\n\n", "\n", " ", ""}
	for _, c := range []struct {
		name  string
		input map[string]any
		want  []string
	}{
		{"recursive", map[string]any{"separators": recursive, "chunk_size": 40, "chunk_overlap": 10, "keep_separator": false, "recursive": true}, []string{
			"# Heat", "A heist in Los Angeles. The crew of Neil", "crew of Neil McCauley plans one last", "one last score.",
			"Detective Vincent Hanna is on their", "is on their trail.", "Supercalifragilisticexpialidocious-words",
			"ious-words-without-spaces", "and 🎬 emoji 🎬 here."}},
		{"simple", map[string]any{"separators": recursive, "chunk_size": 40, "chunk_overlap": 10, "keep_separator": true, "recursive": true}, []string{
			"# Heat", "A heist in Los Angeles. The crew of", "crew of Neil McCauley plans one last", "one last score.",
			"Detective Vincent Hanna is on their", "on their trail.", "Supercalifragilisticexpialidocious-word",
			"cious-words-without-spaces", "and 🎬 emoji 🎬 here."}},
		{"character", map[string]any{"separators": []string{"\n"}, "chunk_size": 60, "chunk_overlap": 20, "keep_separator": false, "recursive": false}, []string{
			"# Heat", "A heist in Los Angeles. The crew of Neil McCauley plans one last score.",
			"Detective Vincent Hanna is on their trail.",
			"Supercalifragilisticexpialidocious-words-without-spaces and 🎬 emoji 🎬 here."}},
	} {
		vm := goja.New()
		if _, err := vm.RunString(splitterJS); err != nil {
			t.Fatal(err)
		}
		execute, _ := goja.AssertFunction(vm.Get("execute"))
		c.input["text"] = text
		v, err := execute(goja.Undefined(), vm.ToValue(c.input))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		stringify, _ := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("stringify"))
		js, _ := stringify(goja.Undefined(), v)
		var out struct{ Chunks []struct{ Text string } }
		if err := json.Unmarshal([]byte(js.String()), &out); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ch := range out.Chunks {
			got = append(got, ch.Text)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: chunks\n%q\nwant (langchain's)\n%q", c.name, got, c.want)
		}
	}
}
