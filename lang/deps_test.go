package lang

import (
	"strings"
	"testing"
)

// TestRequirementsAreOneLine: a requirement is written as one line of
// pip's requirements file, so a line break inside one, which would make
// what follows it a pip option (-f . points pip at the flow's directory),
// is refused; spaces and tabs between its parts are not.
func TestRequirementsAreOneLine(t *testing.T) {
	decode := func(reqs string) string {
		f, diags := NewParser().ParseSource([]byte("block \"b\" {\nruntime = \"python\"\nsource = \"def execute(i, c): pass\"\nrequirements = "+reqs+"\n}\n"), "b.block.hcl")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if _, diags = DecodeBlockFile(f); !diags.HasErrors() {
			return ""
		}
		return diags.Error()
	}
	for _, ok := range []string{`["numpy == 2.1.*"]`, `["numpy>=1,\t<3", "python-dateutil[extra] >= 2.9"]`} {
		if errs := decode(ok); errs != "" {
			t.Errorf("%s: %s", ok, errs)
		}
	}
	for _, bad := range []string{`["numpy==\n-f."]`, `["numpy>=1,\n<3"]`, `["numpy\r\n==1"]`, `["numpy==1\n--pre"]`} {
		if errs := decode(bad); !strings.Contains(errs, "Invalid requirement") {
			t.Errorf("%s: %q", bad, errs)
		}
	}
}
