package n8n

import (
	"regexp"
	"strings"
)

// adapterNames are the $ names the n8n_code adapter gives an expression
// (n8n_code.js, scope).
var adapterNames = map[string]bool{"$json": true, "$input": true, "$node": true, "$items": true, "$itemIndex": true,
	"$runIndex": true, "$workflow": true, "$prevNode": true, "$item": true, "$ifEmpty": true}

// dollarName is a $ name of JavaScript code.
var dollarName = regexp.MustCompile(`\$[A-Za-z_][A-Za-z0-9_$]*`)

// unknownN8NName is the first $ name in the code of text's {{ }} parts
// (outside its string literals) that the adapter does not give — n8n's
// $credentials, $binary, $parameter, $mode…, which would fail the step
// or read as undefined where n8n has a value — or "".
func unknownN8NName(text string) string {
	for _, part := range n8nCodeParts(text) {
		for _, loc := range dollarName.FindAllStringIndex(part, -1) {
			if loc[0] > 0 && (part[loc[0]-1] == '.' || part[loc[0]-1] == '_' || isWordByte(part[loc[0]-1])) {
				continue
			}
			if name := part[loc[0]:loc[1]]; !adapterNames[name] {
				return name
			}
		}
	}
	return ""
}

// n8nCodeParts are the code of text's {{ }} parts with the text of their
// string literals, template literals (not their ${ } parts, which are
// code), regular expressions and comments blanked out (jsCodeText).
func n8nCodeParts(text string) []string {
	var parts []string
	for {
		open := strings.Index(text, "{{")
		if open < 0 {
			return parts
		}
		end := strings.Index(text[open+2:], "}}")
		if end < 0 {
			return parts
		}
		parts = append(parts, jsCodeText(text[open+2:open+2+end]))
		text = text[open+2+end+2:]
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
