package retrieval

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/flowctl/flowctl/blocks"
	"github.com/tiktoken-go/tokenizer"
	"github.com/zclconf/go-cty/cty"
)

// ChunkEncoding is the encoding the chunk block counts tokens with: the
// LLM layer's (package blocks/llm counts with it the tokens of every
// model tiktoken has no encoding of, and OpenAI's current embeddings
// models use it).
const ChunkEncoding = tokenizer.Cl100kBase

var chunkCodec = sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(ChunkEncoding) })

// chunkExecutor runs the chunk block: pure computation on its caller's
// goroutine.
type chunkExecutor struct{}

func (chunkExecutor) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	codec, err := chunkCodec()
	if err != nil {
		return nil, fmt.Errorf("the tokenizer %s: %w", ChunkEncoding, err)
	}
	maxTok, _ := call.Inputs["max_tokens"].AsBigFloat().Int64()
	overlap, _ := call.Inputs["overlap"].AsBigFloat().Int64()
	if overlap >= maxTok {
		return nil, fmt.Errorf("overlap (%d) must be less than max_tokens (%d)", overlap, maxTok)
	}
	c := &chunker{codec: codec, max: int(maxTok), overlap: int(overlap)}
	chunks, err := c.split(ctx, call.Inputs["text"].AsString(), call.Inputs["by"].AsString())
	if err != nil {
		return nil, err
	}
	vals := make([]cty.Value, len(chunks))
	for i, ch := range chunks {
		vals[i] = cty.ObjectVal(map[string]cty.Value{
			"text": cty.StringVal(ch.text), "start": cty.NumberIntVal(int64(ch.start)), "end": cty.NumberIntVal(int64(ch.end)),
			"tokens": cty.NumberIntVal(int64(ch.tokens)), "heading": cty.StringVal(ch.heading),
		})
	}
	list := cty.ListValEmpty(blocks.ChunkType)
	if len(vals) > 0 {
		list = cty.ListVal(vals)
	}
	return &blocks.Result{Outputs: map[string]cty.Value{"chunks": list, "count": cty.NumberIntVal(int64(len(vals)))}}, nil
}

// A chunk is a piece of the text: text[s:e] in bytes; start and end are
// in characters.
type chunk struct {
	text       string
	s, e       int
	start, end int
	tokens     int
	heading    string
}

// A span is a piece of the text in bytes, with its tokens.
type span struct {
	s, e, tokens int
}

type chunker struct {
	codec        tokenizer.Codec
	max, overlap int
	// The region of the text tokenized once (tokenize): from s to e, and
	// where each of its tokens ends.
	s, e int
	ends []int
}

// tokenize encodes text[s:e] once, for count to read the tokens of its
// pieces from; when its tokens do not add up to the text, count encodes
// each piece alone.
func (c *chunker) tokenize(text string, s, e int) {
	c.s, c.e, c.ends = s, e, c.ends[:0]
	_, toks, err := c.codec.Encode(text[s:e])
	pos := s
	for _, tk := range toks {
		pos += len(tk)
		c.ends = append(c.ends, pos)
	}
	if err != nil || pos != e {
		c.ends = c.ends[:0]
	}
}

// count is how many tokens text[a:b] has: the tokens of the tokenized
// region that overlap it (a token that starts before a, as " word" does
// before a word, counts), else text[a:b] encoded alone. The two differ
// at most where a word is cut at a or b, which chunks never do.
func (c *chunker) count(text string, a, b int) int {
	if len(c.ends) > 0 && a >= c.s && b <= c.e && a < b {
		first, _ := slices.BinarySearch(c.ends, a+1) // the first token ending after a
		last, _ := slices.BinarySearch(c.ends, b)    // the first token ending at b or after
		return min(last, len(c.ends)-1) - first + 1
	}
	n, err := c.codec.Count(text[a:b])
	if err != nil {
		return (b - a + 3) / 4
	}
	return n
}

// split cuts text into chunks of at most max tokens:
//   - by "tokens", windows of max tokens, each starting about overlap
//     tokens before the end of the one before;
//   - by "sentence", sentences (and paragraphs) packed into chunks, the
//     next chunk starting with the last sentences of the one before that
//     fit in overlap tokens; a sentence longer than max is cut by tokens;
//   - by "markdown", the same within each section: a chunk never spans a
//     heading, starts with its section's heading when it is the first of
//     the section, and carries the heading (with its parents', joined by
//     " > ").
//
// The chunks are slices of the text, so the same text gives the same
// chunks.
func (c *chunker) split(ctx context.Context, text, by string) ([]chunk, error) {
	var out []chunk
	switch by {
	case "tokens":
		c.tokenize(text, 0, len(text))
		out = c.pack(text, c.tokenSpans(text, 0, len(text)), "", nil)
	case "sentence":
		c.tokenize(text, 0, len(text))
		out = c.pack(text, c.sentenceSpans(text, 0, len(text)), "", nil)
	case "markdown":
		for _, sec := range markdownSections(text) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			c.tokenize(text, sec.s, sec.e)
			out = c.pack(text, c.sentenceSpans(text, sec.s, sec.e), sec.heading, out)
		}
	default:
		return nil, fmt.Errorf("by is %q; it is one of markdown, sentence, tokens", by)
	}
	// Characters, counted once along the text.
	pos, chars := 0, 0
	for i := range out {
		ch := &out[i]
		if ch.s < pos {
			pos, chars = 0, 0 // an overlap: count again from the start
		}
		chars += utf8.RuneCountInString(text[pos:ch.s])
		ch.start = chars
		ch.end = chars + utf8.RuneCountInString(text[ch.s:ch.e])
		pos = ch.s
	}
	return out, nil
}

// pack joins consecutive spans into chunks of at most max tokens and
// appends them to out. Spans over max are cut by tokens first.
func (c *chunker) pack(text string, spans []span, heading string, out []chunk) []chunk {
	var units []span
	for _, sp := range spans {
		if sp.tokens > c.max {
			units = append(units, c.tokenSpans(text, sp.s, sp.e)...)
		} else {
			units = append(units, sp)
		}
	}
	for i := 0; i < len(units); {
		j, sum := i, 0
		for j < len(units) && (j == i || sum+units[j].tokens <= c.max) {
			sum += units[j].tokens
			j++
		}
		ch := c.makeChunk(text, units[i].s, units[j-1].e, heading)
		for ch.tokens > c.max && j-1 > i { // the joins added tokens
			j--
			ch = c.makeChunk(text, units[i].s, units[j-1].e, heading)
		}
		out = append(out, ch)
		if j == len(units) {
			break
		}
		// The next chunk starts with the last units that fit in overlap.
		k, ov := j, 0
		for k-1 > i && ov+units[k-1].tokens <= c.overlap {
			k--
			ov += units[k].tokens
		}
		i = k
	}
	return out
}

func (c *chunker) makeChunk(text string, s, e int, heading string) chunk {
	return chunk{text: text[s:e], s: s, e: e, tokens: c.count(text, s, e), heading: heading}
}

// tokenSpans cuts text[s:e] into its tokens, a span a token, cut only
// between characters: the tokens of one character (and any that end
// inside one) make one span, with their count.
func (c *chunker) tokenSpans(text string, s, e int) []span {
	ends := c.ends
	if s != c.s || e != c.e || len(ends) == 0 { // a piece of the region: encoded alone
		_, toks, err := c.codec.Encode(text[s:e])
		ends = nil
		if err == nil {
			pos := s
			for _, tk := range toks {
				pos += len(tk)
				ends = append(ends, pos)
			}
		}
	}
	var out []span
	if len(ends) > 0 {
		start, n := s, 0
		for _, pos := range ends {
			n++
			if pos > e {
				break
			}
			if pos < e && !utf8.RuneStart(text[pos]) {
				continue // inside a character: the next token joins this span
			}
			out = append(out, span{s: start, e: pos, tokens: n})
			start, n = pos, 0
		}
		if k := len(out); k > 0 && out[k-1].e == e {
			return out
		}
	}
	// Tokens that do not add up to the text: four bytes a token.
	out = out[:0]
	for p := s; p < e; {
		q := min(p+4, e)
		for q < e && !utf8.RuneStart(text[q]) {
			q++
		}
		out = append(out, span{s: p, e: q, tokens: 1})
		p = q
	}
	return out
}

// sentenceSpans cuts text[s:e] into sentences: a sentence ends after
// ., ! or ? (and closing quotes or brackets) followed by white space, or
// at a blank line. Leading white space belongs to no sentence.
func (c *chunker) sentenceSpans(text string, s, e int) []span {
	var out []span
	add := func(a, b int) {
		for a < b {
			r, n := utf8.DecodeRuneInString(text[a:b])
			if !unicode.IsSpace(r) {
				break
			}
			a += n
		}
		for b > a {
			r, n := utf8.DecodeLastRuneInString(text[a:b])
			if !unicode.IsSpace(r) {
				break
			}
			b -= n
		}
		if a < b {
			out = append(out, span{s: a, e: b, tokens: c.count(text, a, b)})
		}
	}
	start := s
	for i := s; i < e; {
		r, n := utf8.DecodeRuneInString(text[i:e])
		i += n
		switch {
		case r == '\n' && strings.HasPrefix(text[i:e], "\n"):
			add(start, i)
			start = i
		case r == '.' || r == '!' || r == '?' || r == '。':
			j := i
			for j < e && strings.ContainsRune(`"')]”’`, rune(text[j])) {
				j++
			}
			if j == e {
				continue
			}
			if nr, _ := utf8.DecodeRuneInString(text[j:e]); unicode.IsSpace(nr) || r == '。' {
				add(start, j)
				start, i = j, j
			}
		}
	}
	add(start, e)
	return out
}

// A section of a Markdown text: from a heading line (or the start) to
// the next heading, and the headings it is under.
type section struct {
	s, e    int
	heading string
}

// markdownSections cuts a Markdown text at its ATX headings (# to
// ######), outside fenced code blocks.
func markdownSections(text string) []section {
	var out []section
	var path []string // path[level-1] is the heading at that level
	fence := ""
	cur := section{}
	for pos := 0; pos < len(text); {
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += pos + 1
		}
		line := strings.TrimRight(text[pos:end], "\r\n")
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
		default:
			if level, title, ok := atxHeading(trimmed); ok && len(line)-len(trimmed) < 4 {
				if pos > cur.s {
					cur.e = pos
					out = append(out, cur)
				}
				if level > len(path) {
					path = append(path, make([]string, level-len(path))...)
				}
				path = append(path[:level-1], title)
				var parts []string
				for _, p := range path {
					if p != "" {
						parts = append(parts, p)
					}
				}
				cur = section{s: pos, heading: strings.Join(parts, " > ")}
			}
		}
		pos = end
	}
	if len(text) > cur.s {
		cur.e = len(text)
		out = append(out, cur)
	}
	return out
}

// atxHeading parses "## Title ##" into 2 and "Title".
func atxHeading(line string) (int, string, bool) {
	level := 0
	for level < len(line) && line[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(line) && line[level] != ' ' && line[level] != '\t') {
		return 0, "", false
	}
	title := strings.TrimSpace(line[level:])
	title = strings.TrimSpace(strings.TrimRight(title, "#"))
	return level, title, true
}
