package index

import (
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// tokenize splits text into index terms: words (runs of letters and
// digits) split further at camelCase humps, lower-cased, without English
// stop words, stemmed. "fetchWebPages" and "fetch_web_pages" both give
// fetch, web, page.
func tokenize(text string) []string {
	var terms []string
	for _, w := range words(text) {
		w = strings.ToLower(w)
		if english.IsStopWord(w) {
			continue
		}
		terms = append(terms, english.Stem(w, true))
	}
	return terms
}

// words splits text at every character that is not a letter or digit, and
// each part at its camelCase humps: "parseHTTPResponse2" gives parse, HTTP,
// Response2.
func words(text string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		out = append(out, splitCamel(part)...)
	}
	return out
}

// splitCamel splits a word before an upper-case letter that follows a
// lower-case letter or digit ("camelCase"), and before the last capital of
// a run of capitals followed by a lower-case letter ("HTTPServer" gives
// HTTP, Server).
func splitCamel(w string) []string {
	rs := []rune(w)
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		if !unicode.IsUpper(rs[i]) {
			continue
		}
		prev := rs[i-1]
		acronymEnd := unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
		if unicode.IsLower(prev) || unicode.IsDigit(prev) || acronymEnd {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	return append(out, string(rs[start:]))
}
