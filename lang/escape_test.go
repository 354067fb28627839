package lang

import "testing"

func TestEscapeControl(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, é and 日本":          "plain text, é and 日本",
		"tab\tand\nnewline":             "tab\tand\nnewline",
		"crlf\r\nline":                  "crlf\r\nline",
		"\x1b]0;pwned\x07title":         `\x1b]0;pwned\x07title`,
		"clear\x1b[2J":                  `clear\x1b[2J`,
		"over\rwrite":                   `over\rwrite`,
		"bad \xff\xfe bytes":            `bad \xff\xfe bytes`,
		"del\x7f and c1 \u009b[31m":     `del\u007f and c1 \u009b[31m`,
		"bidi \u202eevil\u202c":         `bidi \u202eevil\u202c`,
		"nul\x00":                       `nul\x00`,
		"truncated rune \xe6\x97":       `truncated rune \xe6\x97`,
		"ends with a carriage return\r": `ends with a carriage return\r`,
	} {
		if got := EscapeControl(in); got != want {
			t.Errorf("EscapeControl(%q) = %q, want %q", in, got, want)
		}
	}
	if got := EscapeControlLine("a\x1bb\nc"); got != `a\x1bb\nc` {
		t.Errorf("EscapeControlLine: %q", got)
	}
}

func TestEscapeControlOffsets(t *testing.T) {
	src := []byte("ab\x1bcd\xffe")
	e := EscapeControlOffsets(src)
	if e.Text != `ab\x1bcd\xffe` {
		t.Fatalf("text %q", e.Text)
	}
	// Each original offset and the escaped text's byte it is at.
	for p, want := range []int{0, 1, 2, 6, 7, 8, 12, 13} {
		if got := e.Offset(p); got != want {
			t.Errorf("Offset(%d) = %d, want %d", p, got, want)
		}
	}
	if e := EscapeControlOffsets([]byte("clean")); e.Text != "clean" || e.Offset(3) != 3 {
		t.Errorf("clean text: %+v", e)
	}
}
