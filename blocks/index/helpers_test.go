package index

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// parseType parses a type expression or fails the test.
func parseType(t testing.TB, src string) cty.Type {
	t.Helper()
	ty, diags := lang.ParseType(src, "test")
	if diags.HasErrors() {
		t.Fatalf("type %q: %s", src, diags.Error())
	}
	return ty
}

// fields builds fields from "name: type" specs; a trailing "= null" gives
// the field a null default, which makes an input optional.
func fields(t testing.TB, specs ...string) []*lang.Field {
	t.Helper()
	var out []*lang.Field
	for _, spec := range specs {
		name, rest, _ := strings.Cut(spec, ":")
		typ, optional := strings.CutSuffix(strings.TrimSpace(rest), "= null")
		ty := parseType(t, strings.TrimSpace(typ))
		f := &lang.Field{Name: strings.TrimSpace(name), Type: lang.TypeSpec{Type: ty}, Default: cty.NilVal}
		if optional {
			f.Default = cty.NullVal(ty)
		}
		out = append(out, f)
	}
	return out
}

type blockSpec struct {
	name, runtime, description, useWhen string
	tags                                []string
	inputs, outputs                     []string
}

func block(t testing.TB, s blockSpec) *blocks.Block {
	t.Helper()
	return &blocks.Block{
		Name: s.name, Runtime: s.runtime, Description: s.description, UseWhen: s.useWhen, Tags: s.tags,
		Inputs: fields(t, s.inputs...), Outputs: fields(t, s.outputs...),
	}
}

// catalog is a realistic registry: the built-ins and fourteen user blocks
// of the kind the thinker creates.
func catalog(t testing.TB) []*blocks.Block {
	t.Helper()
	bs := blocks.Builtins()
	for _, s := range []blockSpec{
		{"word_count", "go", "Count the words of a text", "You need the number of words in a text",
			[]string{"text", "count"}, []string{"text: string", "min: number = null"}, []string{"count: number"}},
		{"summarize_article", "llm", "Summarize an article in three short bullets", "You need a short summary of a long text such as a news article",
			[]string{"text", "summary"}, []string{"text: string"}, []string{"bullets: list(string)"}},
		{"translate_text", "llm", "Translate a text into another language", "You need a text in another language, such as French or German",
			[]string{"text", "translation", "language"}, []string{"text: string", "target_language: string"}, []string{"text: string"}},
		{"extract_emails", "go", "Find the email addresses in a text", "You need the e-mail addresses mentioned in a document",
			[]string{"text", "email", "regex"}, []string{"text: string"}, []string{"emails: list(string)"}},
		{"parse_csv", "js", "Parse CSV text into rows of fields", "You need the rows of a CSV file as lists of strings",
			[]string{"csv", "data", "parse"}, []string{"text: string", "separator: string = null"}, []string{"rows: list(list(string))"}},
		{"json_path", "js", "Pick a value out of a JSON document by a dotted path", "You need one field of a large JSON response",
			[]string{"json", "data"}, []string{"document: any", "path: string"}, []string{"value: any"}},
		{"classify_sentiment", "llm", "Classify the sentiment of a text as positive, negative or neutral", "You need to know whether a review or comment is positive",
			[]string{"text", "sentiment", "classification"}, []string{"text: string"}, []string{"label: string", "confidence: number"}},
		{"keywords", "js", "Extract the keywords of a text", "You need the main words or topics of a text",
			[]string{"text", "keywords"}, []string{"text: string"}, []string{"words: list(string)"}},
		{"dedupe_urls", "js", "Remove duplicate URLs from a list, ignoring fragments and trailing slashes", "You need each link once",
			[]string{"url", "list", "web"}, []string{"urls: list(string)"}, []string{"urls: list(string)"}},
		{"html_to_markdown", "go", "Convert an HTML document to Markdown", "You need the content of HTML as Markdown text",
			[]string{"html", "markdown", "convert"}, []string{"html: string"}, []string{"markdown: string"}},
		{"rss_items", "js", "Parse an RSS or Atom feed into its items", "You need the titles and links of a news feed",
			[]string{"rss", "feed", "news", "xml"}, []string{"xml: string"}, []string{"items: list(object({ title = string, link = string }))"}},
		{"format_date", "js", "Format a timestamp as a date string", "You need a readable date",
			[]string{"time", "date"}, []string{"timestamp: number", "layout: string = null"}, []string{"text: string"}},
		{"chunk_text", "go", "Split a long text into chunks of at most a given number of characters", "You need to feed a long text to a model piece by piece",
			[]string{"text", "split"}, []string{"text: string", "size: number = null"}, []string{"chunks: list(string)"}},
		{"issueTitle", "llm", "Write a short title for a GitHub issue from its description", "You need a title for a bug report",
			[]string{"github", "writing"}, []string{"description: string"}, []string{"title: string"}},
	} {
		bs = append(bs, block(t, s))
	}
	return bs
}

func names(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Block.Name
	}
	return out
}
