package index

import (
	"slices"
	"testing"

	"github.com/flowctl/flowctl/blocks"
)

func TestTokenize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"word_count", []string{"word", "count"}},
		{"fetchWebPages", []string{"fetch", "web", "page"}},
		{"HTTPServer", []string{"http", "server"}},
		{"parseHTTPResponse2", []string{"pars", "http", "response2"}},
		{"html_to_markdown", []string{"html", "markdown"}},
		{"Summarizes the articles, quickly!", []string{"summar", "articl", "quick"}},
		{"Fetch a web page", []string{"fetch", "web", "page"}},
		{"e-mail", []string{"e", "mail"}},
		{"sha256 of the file", []string{"sha256", "file"}},
		{"the and of", nil},
		{"", nil},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := tokenize(tc.in); !slices.Equal(got, tc.want) {
				t.Errorf("tokenize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestSearchRanking checks the order of the first hits for queries a user
// or the thinker would ask, over the realistic catalog.
func TestSearchRanking(t *testing.T) {
	ix := New(catalog(t))
	for _, tc := range []struct {
		query string
		want  []string // the first hits, in order
	}{
		{"fetch a web page", []string{"scrape", "http", "dedupe_urls"}},
		{"Fetching web pages", []string{"scrape", "http", "dedupe_urls"}},
		{"count words", []string{"word_count", "keywords"}},
		{"summarize a long article", []string{"summarize_article", "chunk_text", "llm"}},
		{"translate to French", []string{"translate_text", "llm"}},
		{"parse CSV", []string{"parse_csv", "rss_items"}},
		{"RSS news feed", []string{"rss_items"}},
		{"email addresses", []string{"extract_emails"}},
		{"github issue title", []string{"issueTitle"}},
		{"download JSON from an API", []string{"http", "json_path"}},
		{"read a local file", []string{"file", "document", "parse_csv", "http"}},
		{"split text into chunks", []string{"chunk_text"}},
		{"positive or negative review", []string{"classify_sentiment"}},
		{"wait", []string{"sleep"}},
		// A query that is a block's name finds the block first.
		{"http", []string{"http"}},
		{"issue_title", []string{"issueTitle"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			hits := ix.Search(tc.query, 0)
			got := names(hits)
			if len(got) < len(tc.want) || !slices.Equal(got[:len(tc.want)], tc.want) {
				t.Fatalf("Search(%q) = %q, want it to start with %q", tc.query, got, tc.want)
			}
			for i, h := range hits {
				if h.Score <= 0 || h.Score != h.Text || h.Vector != 0 {
					t.Errorf("hit %d: %+v, want Score = Text > 0 and Vector 0", i, h)
				}
				if i > 0 && h.Score > hits[i-1].Score {
					t.Errorf("hit %d (%s, %g) scores above hit %d (%g)", i, h.Block.Name, h.Score, i-1, hits[i-1].Score)
				}
			}
		})
	}
}

// TestBuiltinsFindHTTPAndScrape checks the built-ins' texts: with no user
// blocks, fetching a page finds scrape, then http.
func TestBuiltinsFindHTTPAndScrape(t *testing.T) {
	got := names(New(blocks.Builtins()).Search("fetch a web page", 0))
	if len(got) < 2 || got[0] != "scrape" || got[1] != "http" {
		t.Errorf("Search = %q, want scrape and http first", got)
	}
	for query, want := range map[string]string{
		"call a REST API":        "http",
		"summarize a text":       "llm",
		"read a file":            "file",
		"delay between requests": "sleep",
		"a constant":             "value",
		"links of a website":     "scrape",
	} {
		if got := names(New(blocks.Builtins()).Search(query, 1)); !slices.Equal(got, []string{want}) {
			t.Errorf("Search(%q) = %q, want %s first", query, got, want)
		}
	}
}

func TestSearchTiesByName(t *testing.T) {
	spec := blockSpec{runtime: "js", description: "Reverse a text", inputs: []string{"text: string"}, outputs: []string{"text: string"}}
	var bs []*blocks.Block
	for _, name := range []string{"zeta", "alpha", "mid"} {
		s := spec
		s.name = name
		bs = append(bs, block(t, s))
	}
	for range 3 {
		hits := New(bs).Search("reverse", 0)
		if got := names(hits); !slices.Equal(got, []string{"alpha", "mid", "zeta"}) {
			t.Fatalf("Search = %q, want equal scores in name order", got)
		}
		if hits[0].Score != hits[2].Score {
			t.Errorf("scores %g and %g differ", hits[0].Score, hits[2].Score)
		}
	}
	// The "text" in the description only: a tie broken by name again.
	got := names(New(catalog(t)).Search("text", 2))
	if !slices.Equal(got, []string{"chunk_text", "translate_text"}) {
		t.Errorf("Search(text) = %q, want the two blocks named *_text", got)
	}
}

// TestSearchFieldWeights checks that a term counts most in the name, then
// in the tags, then in the prose (description and use_when alike, where the
// shorter text wins).
func TestSearchFieldWeights(t *testing.T) {
	bs := []*blocks.Block{
		block(t, blockSpec{name: "in_description", runtime: "js", description: "Turn a string into a slug"}),
		block(t, blockSpec{name: "in_tags", runtime: "js", description: "Make URL paths", tags: []string{"slug"}}),
		block(t, blockSpec{name: "slug", runtime: "js", description: "Make URL paths"}),
		block(t, blockSpec{name: "in_use_when", runtime: "js", description: "Make URL paths", useWhen: "You need a slug"}),
		block(t, blockSpec{name: "unrelated", runtime: "js", description: "Add numbers"}),
	}
	got := names(New(bs).Search("slugs", 0))
	if want := []string{"slug", "in_tags", "in_use_when", "in_description"}; !slices.Equal(got, want) {
		t.Errorf("Search = %q, want %q", got, want)
	}
}

func TestSearchLimitAndEmpty(t *testing.T) {
	ix := New(catalog(t))
	if got := ix.Search("text", 3); len(got) != 3 {
		t.Errorf("Search with limit 3 gave %d hits", len(got))
	}
	if all, some := ix.Search("text", 0), ix.Search("text", 100); len(all) != len(some) || len(all) < 8 {
		t.Errorf("Search(text) gave %d hits without a limit, %d with 100", len(all), len(some))
	}
	for _, q := range []string{"", "   ", "the of and", "?!", "xylophone"} {
		if got := ix.Search(q, 0); len(got) != 0 {
			t.Errorf("Search(%q) = %q, want nothing", q, names(got))
		}
	}
	if got := New(nil).Search("text", 0); len(got) != 0 {
		t.Errorf("an empty index found %q", names(got))
	}
}
