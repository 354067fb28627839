package runtime

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
)

// redactor replaces the text of sensitive values in messages: each value
// as it is and in the encodings that messages apply to values (see
// encodedForms). It is a second line of defence: blocks build their errors
// from values already shown through it (blocks.Call.Show). It is safe for
// concurrent use.
type redactor struct {
	mu      sync.RWMutex
	secrets []string // every form of every value, longest first
	seen    map[string]bool
	// rep replaces every form in one pass, so that the stand-in text is
	// never taken for a form in turn.
	rep *strings.Replacer
	// bools: a sensitive bool was added; the words true and false go.
	bools bool
	// A form that spans lines can reach the redactor a line at a time
	// (what a block prints is logged by lines, each redacted as it
	// comes), where it is never whole: its first line is also redacted
	// where a line ends with it, its last where a line starts with it,
	// and those between where they are a whole line.
	lineEnds, lineStarts []string // longest first
	wholeLines           map[string]bool
}

// minRedacted is the shortest text redacted: shorter strings would blank
// out ordinary words.
const minRedacted = 3

func (r *redactor) add(s string) {
	if len(s) < minRedacted {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	if r.seen[s] {
		return
	}
	r.seen[s] = true
	for _, f := range encodedForms(s) {
		if len(f) >= minRedacted && !slices.Contains(r.secrets, f) {
			r.secrets = append(r.secrets, f)
		}
		if strings.Contains(f, "\n") {
			r.addLines(f)
		}
	}
	// Longest first, so that a form that contains another goes whole.
	slices.SortStableFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(r.secrets))
	for _, f := range r.secrets {
		pairs = append(pairs, f, SensitiveText)
	}
	r.rep = strings.NewReplacer(pairs...)
}

// addLines adds the lines of a form that spans lines, without a carriage
// return at their end (a log may have dropped it).
func (r *redactor) addLines(f string) {
	lines := strings.Split(f, "\n")
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if len(l) < minRedacted {
			continue
		}
		switch i {
		case 0:
			r.lineEnds = appendLongestFirst(r.lineEnds, l)
		case len(lines) - 1:
			r.lineStarts = appendLongestFirst(r.lineStarts, l)
		default:
			if r.wholeLines == nil {
				r.wholeLines = map[string]bool{}
			}
			r.wholeLines[l] = true
		}
	}
}

func appendLongestFirst(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	list = append(list, s)
	slices.SortStableFunc(list, func(a, b string) int { return len(b) - len(a) })
	return list
}

// redactLines redacts in each line of s what may be part of a form that
// spans lines (see redactor.lineEnds).
func (r *redactor) redactLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		body, cr := strings.CutSuffix(line, "\r")
		if r.wholeLines[body] {
			body = SensitiveText
		} else {
			body = redactEnd(body, r.lineStarts, strings.HasPrefix, func(p string) string { return SensitiveText + body[len(p):] })
			body = redactEnd(body, r.lineEnds, strings.HasSuffix, func(p string) string { return body[:len(body)-len(p)] + SensitiveText })
		}
		if cr {
			body += "\r"
		}
		lines[i] = body
	}
	return strings.Join(lines, "\n")
}

// redactEnd replaces the first (longest) of pieces that s has at one end,
// as has tells, unless that end is the stand-in text already.
func redactEnd(s string, pieces []string, has func(s, piece string) bool, replace func(piece string) string) string {
	if has(s, SensitiveText) {
		return s
	}
	for _, p := range pieces {
		if has(s, p) {
			return replace(p)
		}
	}
	return s
}

// encodedForms are the texts under which s may appear in a message: each
// of stringForms, without the quotes around it. What code derives from a
// secret otherwise (reversed, split, inside a longer base64 text) is not
// recognised.
func encodedForms(s string) []string {
	forms := make([]string, 0, len(stringForms))
	for _, f := range stringForms {
		if t := f.form(s); !slices.Contains(forms, t) {
			forms = append(forms, t)
		}
	}
	return forms
}

// stringForms are the ways the runtimes, and the errors of Go's libraries,
// write a string into a message, each as the text between the quotes. A
// string inside a longer one that is quoted is written as part of it, so
// a form is the string's own part only: for Python, whose repr picks its
// quote from the whole string, there is a form for each quote.
var stringForms = []struct {
	name string
	form func(string) string
}{
	{"as it is (Go %s and %v, JavaScript String(), Python str())", func(s string) string { return s }},
	{"URL path", url.PathEscape},
	{"URL query", url.QueryEscape},
	{"Go %q, strconv.Quote", goQuoted(strconv.Quote)},
	{"Go %+q, strconv.QuoteToASCII", goQuoted(strconv.QuoteToASCII)},
	{"Go strconv.QuoteToGraphic", goQuoted(strconv.QuoteToGraphic)},
	{"Go encoding/json", goJSON(true)},
	{"Go encoding/json without HTML escaping", goJSON(false)},
	{"JavaScript JSON.stringify, Python json.dumps(ensure_ascii=False)", jsonQuoted(false)},
	{"Python json.dumps", jsonQuoted(true)},
	{"Python repr in single quotes", pyRepr('\'', false)},
	{"Python repr in double quotes", pyRepr('"', false)},
	{"Python ascii() in single quotes", pyRepr('\'', true)},
	{"Python ascii() in double quotes", pyRepr('"', true)},
	{"Python repr of its UTF-8 bytes in single quotes", pyBytesRepr('\'')},
	{"Python repr of its UTF-8 bytes in double quotes", pyBytesRepr('"')},
	{"HTML", html.EscapeString},
	{"base64", encoded(base64.StdEncoding)},
	{"base64 unpadded", encoded(base64.RawStdEncoding)},
	{"base64 URL alphabet", encoded(base64.URLEncoding)},
	{"base64 URL alphabet unpadded", encoded(base64.RawURLEncoding)},
}

func encoded(e *base64.Encoding) func(string) string {
	return func(s string) string { return e.EncodeToString([]byte(s)) }
}

func goQuoted(quote func(string) string) func(string) string {
	return func(s string) string { q := quote(s); return q[1 : len(q)-1] }
}

func goJSON(escapeHTML bool) func(string) string {
	return func(s string) string {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(escapeHTML)
		enc.Encode(s)
		q := strings.TrimSuffix(b.String(), "\n")
		return q[1 : len(q)-1]
	}
}

// jsonQuoted writes s as JavaScript's JSON.stringify and Python's
// json.dumps do, which Go's encoder does not (it escapes U+2028 and
// U+2029): " and \ escaped, \b, \f, \n, \r and \t as such, other control
// characters as \u00xx. With ascii (json.dumps' default), DEL and every
// non-ASCII character are \u escapes too, in UTF-16.
func jsonQuoted(ascii bool) func(string) string {
	return func(s string) string {
		var b strings.Builder
		for _, r := range s {
			switch {
			case r == '"' || r == '\\':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r == '\b':
				b.WriteString(`\b`)
			case r == '\f':
				b.WriteString(`\f`)
			case r == '\n':
				b.WriteString(`\n`)
			case r == '\r':
				b.WriteString(`\r`)
			case r == '\t':
				b.WriteString(`\t`)
			case r < 0x20 || ascii && r >= 0x7f:
				if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
					fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
				} else {
					fmt.Fprintf(&b, `\u%04x`, r)
				}
			default:
				b.WriteRune(r)
			}
		}
		return b.String()
	}
}

// pyRepr writes s as Python's repr does (ascii() when ascii is set)
// between the quote given: that quote and \ escaped, \t, \n and \r as
// such, other ASCII control characters and DEL as \xhh, non-ASCII
// characters as they are when printable (as ascii() does not) and as \xhh,
// \uhhhh or \Uhhhhhhhh otherwise. (Repr picks the double quote when the
// string holds a single quote and no double quote.)
func pyRepr(quote rune, ascii bool) func(string) string {
	return func(s string) string {
		var b strings.Builder
		for _, r := range s {
			switch {
			case r == quote || r == '\\':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r == '\t':
				b.WriteString(`\t`)
			case r == '\n':
				b.WriteString(`\n`)
			case r == '\r':
				b.WriteString(`\r`)
			case r < 0x20 || r == 0x7f:
				fmt.Fprintf(&b, `\x%02x`, r)
			case r < 0x7f || !ascii && strconv.IsPrint(r):
				b.WriteRune(r)
			case r <= 0xff:
				fmt.Fprintf(&b, `\x%02x`, r)
			case r <= 0xffff:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		}
		return b.String()
	}
}

// pyBytesRepr writes the UTF-8 bytes of s as Python's repr of bytes does
// between the quote given (b'...'): that quote and \ escaped, \t, \n and
// \r as such, the other bytes outside printable ASCII as \xhh.
func pyBytesRepr(quote byte) func(string) string {
	return func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == quote || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c == '\t':
				b.WriteString(`\t`)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c < 0x20 || c >= 0x7f:
				fmt.Fprintf(&b, `\x%02x`, c)
			default:
				b.WriteByte(c)
			}
		}
		return b.String()
	}
}

// addValue adds every scalar inside a sensitive value: strings, numbers
// in the forms they print as (numberForms), and bools (as the words true
// and false, both: hiding one but not the other would tell it).
func (r *redactor) addValue(v cty.Value) {
	v, _ = v.UnmarkDeep()
	if v.IsNull() || !v.IsKnown() {
		return
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		r.add(v.AsString())
	case ty == cty.Number:
		for _, f := range numberForms(v.AsBigFloat()) {
			r.add(f)
		}
	case ty == cty.Bool:
		r.mu.Lock()
		r.bools = true
		r.mu.Unlock()
	case ty.IsCollectionType() || ty.IsObjectType() || ty.IsTupleType():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			r.addValue(e)
		}
	}
}

func (r *redactor) redact(s string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.rep != nil {
		s = r.rep.Replace(s)
	}
	if len(r.lineEnds) > 0 || len(r.lineStarts) > 0 || len(r.wholeLines) > 0 {
		s = r.redactLines(s)
	}
	if r.bools {
		s = boolWords.ReplaceAllLiteralString(s, SensitiveText)
	}
	return s
}

// boolWords are how the runtimes print a bool, as whole words.
var boolWords = regexp.MustCompile(`\b(?:true|false|True|False|TRUE|FALSE)\b`)

// numberForms are the texts a number prints as in the runtimes' messages:
// exact decimal (JSON, JavaScript, %d), Go's %v and %g of a float64
// (9.18273645e+08), the exponent forms of JavaScript and Python
// (9.18273645e+8, 9.18273645e8), and Python's float (918273645.0). Forms
// shorter than minRedacted are dropped by add, as for strings.
// A number shorter than that (0, 42) is not redacted at all.
func numberForms(bf *big.Float) []string {
	f, _ := bf.Float64()
	exact := bf.Text('f', -1)
	if len(exact) < minRedacted {
		return nil
	}
	forms := []string{exact, bf.Text('g', -1), strconv.FormatFloat(f, 'f', -1, 64), fmt.Sprint(f), fmt.Sprintf("%g", f)}
	if !strings.Contains(exact, ".") {
		forms = append(forms, exact+".0")
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // 9.18273645e+08
	if m, exp, ok := strings.Cut(e, "e"); ok {
		sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
		if digits == "" {
			digits = "0"
		}
		plus := sign
		if sign == "+" {
			plus = ""
		}
		forms = append(forms, e, m+"e"+sign+digits, m+"e"+plus+digits, strings.ToUpper(e), m+"E"+sign+digits)
	}
	slices.Sort(forms)
	return slices.Compact(forms)
}
