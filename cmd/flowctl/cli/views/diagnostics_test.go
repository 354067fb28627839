package views

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// compileSource compiles a flow from source and returns the parsed files
// and the diagnostics.
func compileSource(t *testing.T, src string) (map[string]*hcl.File, hcl.Diagnostics) {
	t.Helper()
	p := lang.NewParser()
	_, diags := compiler.Compile("f.flow.hcl", compiler.Options{Parser: p, Source: []byte(src)})
	if len(diags) == 0 {
		t.Fatal("no diagnostics")
	}
	return p.Files(), diags
}

// TestHumanDiagnosticsAsHCL: printing each diagnostic with an excerpt of
// its file gives exactly what HCL's writer gives with the whole file.
func TestHumanDiagnosticsAsHCL(t *testing.T) {
	for i, src := range []string{humanDiagsResolve, humanDiagsTypes, humanDiagsSyntax} {
		files, diags := compileSource(t, src)
		var want, got bytes.Buffer
		hcl.NewDiagnosticTextWriter(&want, files, 78, false).WriteDiagnostics(diags)
		WriteDiagnostics(&got, false, files, diags)
		if got.String() != want.String() {
			t.Errorf("source %d: got:\n%s\nwant:\n%s", i, got.String(), want.String())
		}
	}
}

const (
	humanDiagsTypes = `flow "f" {}

input "n" {
  type    = number
  default = 3
}

locals {
  s = "x"
}

step "a" {
  use   = "sleep"
  duration = input.n
}

step "b" {
  use   = "value"
  value = local.s * 2
}

output "o" {
  value = step.a.slept_ms + [
    1,
    2,
  ]
}
`
	humanDiagsSyntax = `flow "f" {}

step "a" {
  use   = "value"
  value = [1, 2
}

step "b" {
  use = "value"
  value = {
    a = 1
    b = = 2
  }
}
`
	humanDiagsResolve = `flow "f" {}

input "n" {
  type    = number
  default = 3
}

step "a" {
  use   = "value"
  value = upper(input.n)
  nope  = 1
}

step "b" {
  use = "htp"
}

step "c" {
  use      = "value"
  value    = step.a.value
  for_each = {
    a = 1
    b = "two"
  }
  when     = step.b.ok
}

output "o" {
  value = step.zz.value
}
`
)

// TestHumanDiagnosticsCap: at most maxDiagnosticsPerFile are printed per
// file, then how many more there are.
func TestHumanDiagnosticsCap(t *testing.T) {
	var src strings.Builder
	src.WriteString("flow \"f\" {}\n")
	for i := range 150 {
		fmt.Fprintf(&src, "step \"s%d\" {\n  use = \"nope\"\n}\n", i)
	}
	files, diags := compileSource(t, src.String())
	if len(diags) != 150 {
		t.Fatalf("%d diagnostics", len(diags))
	}
	var out bytes.Buffer
	WriteDiagnostics(&out, false, files, diags)
	if n := strings.Count(out.String(), "Error: Unknown block"); n != maxDiagnosticsPerFile {
		t.Errorf("%d diagnostics printed, want %d", n, maxDiagnosticsPerFile)
	}
	if !strings.HasSuffix(out.String(), "And 50 more diagnostics in f.flow.hcl not shown (validate --json lists them all).\n\n") {
		t.Errorf("the output ends with %q", out.String()[max(0, out.Len()-200):])
	}
}

// TestHumanDiagnosticsLongLine: a diagnostic in a very long line shows the
// part around it.
func TestHumanDiagnosticsLongLine(t *testing.T) {
	long := strings.Repeat("a", 50_000)
	files, diags := compileSource(t, "flow \"f\" {}\n\nlocals {\n  x = \""+long+"\" + nope + \""+long+"\"\n}\n")
	var out bytes.Buffer
	WriteDiagnostics(&out, false, files, diags)
	if out.Len() > 2000 || !strings.Contains(out.String(), "…") || !strings.Contains(out.String(), "nope") ||
		!strings.Contains(out.String(), "on f.flow.hcl line 4") {
		t.Errorf("%d bytes:\n%.3000s", out.Len(), out.String())
	}
}

// TestDiagnosticsEscapeControl: a file's terminal escape sequences,
// carriage returns, bidirectional overrides and bytes that are not UTF-8
// reach neither the terminal nor the JSON as they are: excerpts,
// summaries, details and file names show them as escapes. A tab stays.
func TestDiagnosticsEscapeControl(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"escapes", "flow \"f\" {\n  description = \"\x1b]0;pwned\x07\"\n}\n\nstep \"a\" {\n  use = \"nope\x1b[2J\u202e\t\"\n}\n",
			[]string{`use = "nope\x1b[2J\u202e` + "\t" + `"`, `no block named "nope\x1b[2J\u202e\t"`}},
		{"invalid UTF-8", "flow \"f\" {\n  description = \"caf\xe9 \xff\"\n}\n",
			[]string{`description = "caf\xe9 \xff"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			files, diags := compileSource(t, c.src)
			var human bytes.Buffer
			WriteDiagnostics(&human, false, files, diags)
			var js bytes.Buffer
			if err := WriteJSON(&js, newJSONValidate(files, diags)); err != nil {
				t.Fatal(err)
			}
			for what, out := range map[string]string{"human": human.String(), "JSON": js.String()} {
				if i := strings.IndexFunc(out, func(r rune) bool {
					return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r == 0x202e || r == 0xfffd
				}); i >= 0 {
					t.Errorf("%s output has %q at %d:\n%s", what, out[i], i, out)
				}
				if what == "JSON" {
					continue // its escapes are escaped again: \\x1b
				}
				for _, w := range c.want {
					if !strings.Contains(out, w) {
						t.Errorf("%s output lacks %q:\n%s", what, w, out)
					}
				}
			}
			if !strings.Contains(js.String(), `\\x`) {
				t.Errorf("JSON output without escapes:\n%s", js.String())
			}
		})
	}
}

// TestExcerptEscapedRanges: a range after escaped characters still
// underlines what it points at.
func TestExcerptEscapedRanges(t *testing.T) {
	src := []byte("a\x1bb\x1bc = 1\n")
	var segs []segment
	text, segs := appendEscaped(nil, segs, src, 0, len(src))
	if string(text) != `a\x1bb\x1bc = 1`+"\n" {
		t.Fatalf("text %q", text)
	}
	r := remap(&hcl.Range{Start: hcl.Pos{Byte: 4}, End: hcl.Pos{Byte: 5}}, segs) // "c"
	if got := string(text[r.Start.Byte:r.End.Byte]); got != "c" {
		t.Errorf("the range covers %q, want \"c\"", got)
	}
	r = remap(&hcl.Range{Start: hcl.Pos{Byte: 1}, End: hcl.Pos{Byte: 2}}, segs) // the first ESC
	if got := string(text[r.Start.Byte:r.End.Byte]); got != `\x1b` {
		t.Errorf("the range covers %q, want the escape", got)
	}
}
