package n8n

import "strings"

// jsCodeText is JavaScript source with the text of its string literals,
// template literals (not their ${ } parts), regular expression literals
// and comments blanked out: what the code names, for the checks of the
// names the adapter does not have, which a word in a message or a
// comment ("Duration must be…") is not. A newline stays where it was.
func jsCodeText(src string) string {
	b := []byte(src)
	blank := func(from, to int) {
		for k := from; k < to && k < len(b); k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	}
	var stack []int // the brace depth at each ${ of a template literal
	depth := 0
	inTemplate := false
	last := 0 // where the last byte of code that is not a space is, +1
	for i := 0; i < len(b); {
		c := b[i]
		if inTemplate {
			switch {
			case c == '\\':
				blank(i, i+2)
				i += 2
			case c == '`':
				inTemplate = false
				i++
				last = i
			case c == '$' && i+1 < len(b) && b[i+1] == '{':
				depth++
				stack = append(stack, depth)
				inTemplate = false
				i += 2
				last = i
			default:
				blank(i, i+1)
				i++
			}
			continue
		}
		switch {
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			end := len(b)
			if j := strings.IndexByte(src[i:], '\n'); j >= 0 {
				end = i + j
			}
			blank(i, end)
			i = end
			continue
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := len(b)
			if j := strings.Index(src[i+2:], "*/"); j >= 0 {
				end = i + 2 + j + 2
			}
			blank(i, end)
			i = end
			continue
		case c == '/' && regexCanStart(src[:last]):
			j, class := i+1, false
			for j < len(b) && b[j] != '\n' && (b[j] != '/' || class) {
				switch b[j] {
				case '\\':
					j++
				case '[':
					class = true
				case ']':
					class = false
				}
				j++
			}
			blank(i+1, j)
			i = j + 1
			last = min(i, len(b))
			continue
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(b) && b[j] != c && b[j] != '\n' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			blank(i+1, j)
			i = j + 1
			last = min(i, len(b))
			continue
		case c == '`':
			inTemplate = true
			i++
			continue
		case c == '{':
			depth++
		case c == '}':
			if n := len(stack); n > 0 && stack[n-1] == depth {
				stack = stack[:n-1]
				depth--
				inTemplate = true
				i++
				continue
			}
			depth--
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			last = i + 1
		}
		i++
	}
	return string(b)
}

// regexCanStart reports whether a / after the code before is a regular
// expression literal rather than a division: after an operator or a
// bracket that opens, at the start, or after a keyword such as return.
func regexCanStart(before string) bool {
	before = strings.TrimRight(before, " \t\r\n")
	if before == "" {
		return true
	}
	c := before[len(before)-1]
	if strings.IndexByte("(,=:[!&|?{};+-*%<>~^", c) >= 0 {
		return true
	}
	k := len(before)
	for k > 0 && (isWordByte(before[k-1]) || before[k-1] == '_' || before[k-1] == '$') {
		k--
	}
	switch before[k:] {
	case "return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "instanceof", "yield", "await":
		return k == 0 || before[k-1] != '.'
	}
	return false
}
