package retrieval

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
	"github.com/zclconf/go-cty/cty"
)

type testChunk struct {
	text, heading      string
	start, end, tokens int
}

func runChunk(t *testing.T, text, by string, maxTokens, overlap int) ([]testChunk, error) {
	t.Helper()
	call := builtinCall(t, "chunk", map[string]cty.Value{
		"text": cty.StringVal(text), "by": cty.StringVal(by),
		"max_tokens": cty.NumberIntVal(int64(maxTokens)), "overlap": cty.NumberIntVal(int64(overlap)),
	})
	for name, v := range call.Inputs {
		if err := call.Block.CheckInput(name, v); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	res, err := chunkExecutor{}.Execute(context.Background(), call)
	if err != nil {
		return nil, err
	}
	var out []testChunk
	for _, v := range res.Outputs["chunks"].AsValueSlice() {
		num := func(n string) int { i, _ := v.GetAttr(n).AsBigFloat().Int64(); return int(i) }
		out = append(out, testChunk{text: v.GetAttr("text").AsString(), heading: v.GetAttr("heading").AsString(),
			start: num("start"), end: num("end"), tokens: num("tokens")})
	}
	if n, _ := res.Outputs["count"].AsBigFloat().Int64(); int(n) != len(out) {
		t.Errorf("count %d, %d chunks", n, len(out))
	}
	return out, nil
}

// checkChunks: every chunk is the slice of the text its start and end
// say (in characters), within max tokens, and the chunks cover the text's
// words in order.
func checkChunks(t *testing.T, text string, chunks []testChunk, maxTokens int) {
	t.Helper()
	runes := []rune(text)
	prevStart := -1
	for i, c := range chunks {
		if string(runes[c.start:c.end]) != c.text {
			t.Errorf("chunk %d: [%d,%d) is %q, not its text %q", i, c.start, c.end, string(runes[c.start:c.end]), c.text)
		}
		if c.tokens > maxTokens || c.tokens <= 0 {
			t.Errorf("chunk %d has %d tokens (max %d)", i, c.tokens, maxTokens)
		}
		if c.start <= prevStart {
			t.Errorf("chunk %d starts at %d, not after %d", i, c.start, prevStart)
		}
		prevStart = c.start
	}
	var covered strings.Builder
	end := 0
	for _, c := range chunks {
		if c.start > end {
			covered.WriteString(" ") // white space between chunks
		}
		if c.end > end {
			covered.WriteString(string(runes[max(c.start, end):c.end]))
			end = c.end
		}
	}
	if strings.Join(strings.Fields(covered.String()), " ") != strings.Join(strings.Fields(text), " ") {
		t.Errorf("the chunks do not cover the text")
	}
}

// TestChunkMarkdown: sections are chunked apart, each chunk carries its
// heading path, a section too long for one chunk is cut between
// sentences with the next chunk starting with the end of the one before,
// headings in fenced code are not headings, and the same text gives the
// same chunks.
func TestChunkMarkdown(t *testing.T) {
	var long strings.Builder
	for i := range 30 {
		fmt.Fprintf(&long, "Sentence number %d tells of the river and its long journey to the sea. ", i)
	}
	text := "Préface en français.\n\n# Guide\n\nThe guide starts here.\n\n## Install\n\n" + long.String() +
		"\n\n```sh\n# not a heading\nmake\n```\n\n## Use\n\nRun it.\n\n# Appendix\n\nLast words.\n"
	chunks, err := runChunk(t, text, "markdown", 60, 20)
	if err != nil {
		t.Fatal(err)
	}
	checkChunks(t, text, chunks, 60)
	headings := map[string]int{}
	for _, c := range chunks {
		headings[c.heading]++
	}
	if headings[""] != 1 || headings["Guide"] != 1 || headings["Guide > Install"] < 3 || headings["Guide > Use"] != 1 || headings["Appendix"] != 1 || len(headings) != 5 {
		t.Errorf("headings: %v", headings)
	}
	if chunks[0].text != "Préface en français." || chunks[0].start != 0 || chunks[0].end != 20 {
		t.Errorf("first chunk: %+v", chunks[0])
	}
	if c := chunks[1]; c.text != "# Guide\n\nThe guide starts here." || c.heading != "Guide" {
		t.Errorf("the Guide chunk: %+v", c)
	}
	last := chunks[len(chunks)-1]
	if last.text != "# Appendix\n\nLast words." || last.heading != "Appendix" {
		t.Errorf("last chunk: %+v", last)
	}
	// Within Install: consecutive chunks overlap by whole sentences.
	var install []testChunk
	for _, c := range chunks {
		if c.heading == "Guide > Install" {
			install = append(install, c)
		}
	}
	if !strings.HasPrefix(install[0].text, "## Install") {
		t.Errorf("the section's first chunk does not start with its heading: %q", install[0].text)
	}
	for i := 1; i < len(install); i++ {
		if install[i].start >= install[i-1].end {
			t.Errorf("install chunk %d starts at %d, after the one before ends (%d): no overlap", i, install[i].start, install[i-1].end)
		}
		if !strings.HasPrefix(install[i].text, "Sentence number") && !strings.HasPrefix(install[i].text, "```") {
			t.Errorf("install chunk %d does not start at a sentence: %q", i, install[i].text)
		}
	}
	again, _ := runChunk(t, text, "markdown", 60, 20)
	if fmt.Sprint(again) != fmt.Sprint(chunks) {
		t.Error("the same text gave other chunks")
	}
}

// TestChunkSentenceAndTokens: sentence chunks end at sentence ends; token
// chunks are windows of max tokens overlapping by overlap, cut between
// characters, a multi-byte text included.
func TestChunkSentenceAndTokens(t *testing.T) {
	text := "One fish. Two fish! Red fish? Blue fish.\n\nA new paragraph without an end"
	chunks, err := runChunk(t, text, "sentence", 8, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkChunks(t, text, chunks, 8)
	var got []string
	for _, c := range chunks {
		got = append(got, c.text)
	}
	if want := []string{"One fish. Two fish! Red fish?", "Blue fish.", "A new paragraph without an end"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("sentence chunks: %q, want %q", got, want)
	}

	long := strings.Repeat("Zürich 東京 naïve café — ", 40)
	chunks, err = runChunk(t, long, "tokens", 50, 10)
	if err != nil {
		t.Fatal(err)
	}
	checkChunks(t, long, chunks, 50)
	for i, c := range chunks {
		if !utf8.ValidString(c.text) {
			t.Errorf("chunk %d cuts a character: %q", i, c.text)
		}
		if i < len(chunks)-1 && c.tokens < 45 {
			t.Errorf("chunk %d has %d tokens; a window has about 50", i, c.tokens)
		}
		if i > 0 && c.start >= chunks[i-1].end {
			t.Errorf("chunk %d does not overlap the one before", i)
		}
	}
	if len(chunks) < 3 {
		t.Errorf("%d chunks", len(chunks))
	}

	if chunks, err := runChunk(t, "", "markdown", 10, 0); err != nil || len(chunks) != 0 {
		t.Errorf("empty text: %v %v", chunks, err)
	}
	for _, tt := range []struct {
		by           string
		max, overlap int
		want         string
	}{
		{"words", 10, 0, `"words" is not one of markdown, sentence, tokens`},
		{"tokens", 10, 10, "overlap (10) must be less than max_tokens (10)"},
		{"tokens", 0, 0, "must be a whole number from 1"},
		{"tokens", 10, -1, "must be a whole number from 0"},
	} {
		if _, err := runChunk(t, "text", tt.by, tt.max, tt.overlap); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("by %s max %d overlap %d: %v, want %q", tt.by, tt.max, tt.overlap, err, tt.want)
		}
	}
}

// countingCodec counts the bytes a codec is given to tokenize.
type countingCodec struct {
	tokenizer.Codec
	bytes int
}

func (c *countingCodec) Count(s string) (int, error) { c.bytes += len(s); return c.Codec.Count(s) }
func (c *countingCodec) Encode(s string) ([]uint, []string, error) {
	c.bytes += len(s)
	return c.Codec.Encode(s)
}

// TestChunkTokenizesOnce: chunk tokenizes each section once, and reads
// the tokens of its sentences and of its chunks from that (it tokenized
// every sentence, then every chunk again: a fifth of an ingest's time),
// and each chunk's count is the count of its text alone.
func TestChunkTokenizesOnce(t *testing.T) {
	var b strings.Builder
	for sec := range 6 {
		fmt.Fprintf(&b, "## Part %d\n\n", sec)
		for s := range 40 {
			fmt.Fprintf(&b, "The river (number %d) flows north through old towns, \"green\" valleys and café terraces %d. ", sec, s)
			if s%9 == 8 {
				b.WriteString("\n\n")
			}
		}
		b.WriteString("\n\n")
	}
	text := b.String()
	codec, err := chunkCodec()
	if err != nil {
		t.Fatal(err)
	}
	for _, by := range []string{"markdown", "sentence", "tokens"} {
		cc := &countingCodec{Codec: codec}
		c := &chunker{codec: cc, max: 120, overlap: 20}
		chunks, err := c.split(context.Background(), text, by)
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) < 10 {
			t.Fatalf("%s: %d chunks", by, len(chunks))
		}
		if cc.bytes != len(text) {
			t.Errorf("by %s: %d bytes tokenized for a text of %d", by, cc.bytes, len(text))
		}
		for i, ch := range chunks {
			alone, _ := codec.Count(ch.text)
			if ch.tokens != alone {
				t.Errorf("by %s: chunk %d has %d tokens, %d alone: %q", by, i, ch.tokens, alone, ch.text)
			}
		}
	}
}
