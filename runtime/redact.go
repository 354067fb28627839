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
	}
	// Longest first, so that a form that contains another goes whole.
	slices.SortStableFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(r.secrets))
	for _, f := range r.secrets {
		pairs = append(pairs, f, SensitiveText)
	}
	r.rep = strings.NewReplacer(pairs...)
}

// encodedForms are the texts under which s may appear in a message: as it
// is, URL-escaped for a path or a query, quoted as Go (%q, %+q) and JSON
// quote strings, HTML-escaped, and base64-encoded (standard and URL
// alphabets, padded or not). What code derives from a secret otherwise
// (reversed, split, inside a longer base64 text) is not recognised.
func encodedForms(s string) []string {
	unquote := func(q string) string { return q[1 : len(q)-1] }
	var js strings.Builder
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	jsonHTML, _ := json.Marshal(s)
	b := []byte(s)
	return []string{
		s,
		url.PathEscape(s),
		url.QueryEscape(s),
		unquote(strconv.Quote(s)),
		unquote(strconv.QuoteToASCII(s)),
		unquote(strings.TrimSuffix(js.String(), "\n")),
		unquote(string(jsonHTML)),
		html.EscapeString(s),
		base64.StdEncoding.EncodeToString(b),
		base64.RawStdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b),
		base64.RawURLEncoding.EncodeToString(b),
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
