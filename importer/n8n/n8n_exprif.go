package n8n

import (
	"strings"
)

// n8n's $if(test, value_if_true[, value_if_false]) is no function: before
// it evaluates an expression, n8n rewrites each call whose arguments are
// not spread into a conditional expression, test ? value_if_true :
// value_if_false, false when the third is absent (n8n-workflow's
// extendTransform), so that only the branch taken is evaluated. rewriteIf
// does the same to the {{ }} parts of an expression for goja.

// rewriteIf rewrites the $if calls of the expression text (with its
// leading =) and reports whether it did; false leaves text as it is
// (its $if, if any, is then refused as a name the adapter does not have):
// a call with fewer than two arguments (n8n fails on it), a spread
// argument, or a call the scan cannot delimit.
func rewriteIf(text string) (string, bool) {
	if !strings.Contains(text, "$if") {
		return text, false
	}
	changed := false
	for {
		chunks := splitN8N(text[1:])
		done := true
		// The last call of the last part first: a call that starts later
		// is inside an earlier one or after it, so the earlier calls'
		// starts do not move.
		for i := len(chunks) - 1; i >= 0; i-- {
			c := chunks[i]
			if !c.code || c.end-c.start < 4 {
				continue
			}
			lo, hi := 1+c.start+2, 1+c.end-2
			if !strings.HasSuffix(text[:1+c.end], "}}") {
				continue // a part left open at the end
			}
			code := text[lo:hi]
			out, found, ok := rewriteLastIf(code)
			if !found {
				continue
			}
			if !ok {
				return text, false
			}
			text, changed, done = text[:lo]+out+text[hi:], true, false
			break
		}
		if done {
			return text, changed
		}
	}
}

// rewriteLastIf rewrites the last $if call of code: whether there was
// one, and whether it could be rewritten.
func rewriteLastIf(code string) (out string, found, ok bool) {
	blank := blankStrings(code)
	at := -1
	for i := strings.LastIndex(blank, "$if"); i >= 0; i = strings.LastIndex(blank[:i], "$if") {
		if i > 0 && (isWordByte(blank[i-1]) || blank[i-1] == '.' || blank[i-1] == '$' || blank[i-1] == '_') {
			continue
		}
		j := i + 3
		if j < len(blank) && (isWordByte(blank[j]) || blank[j] == '$' || blank[j] == '_') {
			continue // $ifEmpty, $iffy
		}
		at = i
		break
	}
	if at < 0 {
		return code, false, false
	}
	open := at + 3
	for open < len(blank) && (blank[open] == ' ' || blank[open] == '\t' || blank[open] == '\n' || blank[open] == '\r') {
		open++
	}
	if open >= len(blank) || blank[open] != '(' {
		return code, true, false // $if that is not called
	}
	// The arguments: split at the commas outside brackets.
	depth := 0
	var args []string
	start := open + 1
	closeAt := -1
	for k := open; k < len(blank) && closeAt < 0; k++ {
		switch blank[k] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				args = append(args, code[start:k])
				closeAt = k
			}
		case ',':
			if depth == 1 {
				args = append(args, code[start:k])
				start = k + 1
			}
		case '/':
			return code, true, false // a regular expression or a comment: not scanned
		}
	}
	if closeAt < 0 || len(args) < 2 || len(args) > 3 {
		return code, true, false
	}
	for _, a := range args {
		t := strings.TrimSpace(a)
		if t == "" || strings.HasPrefix(t, "...") {
			return code, true, false
		}
	}
	alt := "false"
	if len(args) == 3 {
		alt = strings.TrimSpace(args[2])
	}
	cond := "((" + strings.TrimSpace(args[0]) + ") ? (" + strings.TrimSpace(args[1]) + ") : (" + alt + "))"
	return code[:at] + cond + code[closeAt+1:], true, true
}

// blankStrings is code with the insides of its string literals blanked
// out (n8nCodeParts does it to each part).
func blankStrings(code string) string {
	b := []byte(code)
	var quote byte
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0 && c == '\\':
			b[i] = ' '
			if i+1 < len(b) {
				i++
				b[i] = ' '
			}
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			b[i] = ' '
		case c == '\'' || c == '"' || c == '`':
			quote = c
		}
	}
	return string(b)
}
