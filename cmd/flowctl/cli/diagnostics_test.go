package cli

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
		writeHumanDiagnostics(&got, files, diags)
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
	writeHumanDiagnostics(&out, files, diags)
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
	writeHumanDiagnostics(&out, files, diags)
	if out.Len() > 2000 || !strings.Contains(out.String(), "…") || !strings.Contains(out.String(), "nope") ||
		!strings.Contains(out.String(), "on f.flow.hcl line 4") {
		t.Errorf("%d bytes:\n%.3000s", out.Len(), out.String())
	}
}
