package diagjson

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

func TestNew(t *testing.T) {
	p := lang.NewParser()
	src := "flow \"x\" {}\n\nstep \"a\" {\n  use = 3 +\n}\n"
	_, diags := p.ParseSource([]byte(src), "x.flow.hcl")
	if !diags.HasErrors() {
		t.Fatal("no syntax error")
	}
	diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Something", Detail: "Without a place."})
	v := New(p.Files(), diags)
	if v.FormatVersion != "1.0" || v.Valid || v.ErrorCount == 0 || v.WarningCount != 1 {
		t.Errorf("counts: %+v", v)
	}
	d := v.Diagnostics[0]
	if d.Severity != "error" || d.Range == nil || d.Range.Filename != "x.flow.hcl" || d.Range.Start.Line != 4 ||
		d.Snippet == nil || d.Snippet.Context == nil || *d.Snippet.Context != `step "a"` ||
		!strings.HasPrefix(d.Snippet.Code, "  use = 3 +") || d.Snippet.StartLine != 4 {
		t.Errorf("first diagnostic: %+v", d)
	}
	last := v.Diagnostics[len(v.Diagnostics)-1]
	if last.Severity != "warning" || last.Range != nil || last.Snippet != nil {
		t.Errorf("warning: %+v", last)
	}
	b, _ := json.Marshal(New(nil, nil))
	if !strings.Contains(string(b), `"diagnostics":[]`) || !strings.Contains(string(b), `"valid":true`) {
		t.Errorf("empty: %s", b)
	}
}
