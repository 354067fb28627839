package n8n_test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// importLib imports the workflow src, which must import whole, and
// returns its files and what import says to do next.
func importLib(t *testing.T, src []byte) (map[string]string, []string) {
	t.Helper()
	res, diags := importer.Import([]importer.File{{Name: "wf1.json", Bytes: src}}, importer.Options{})
	if diags.HasErrors() || res == nil {
		t.Fatalf("diagnostics %v", diags)
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatalf("the flows do not validate: %s", d.Error())
	}
	files := map[string]string{}
	for _, f := range res.Files {
		files[f.Name] = string(f.Bytes)
	}
	return files, res.Next
}

// wantLibBlock checks the library block file blocks/NAME.block.hcl: a js
// block NAME declaring exactly the packages given (at the versions n8n
// 2.8.4 has), whose source is the adapter adapterFile as it is, nothing
// bundled; and that import says to lock the flow.
func wantLibBlock(t *testing.T, files map[string]string, next []string, name, adapterFile string, packages map[string]string) {
	t.Helper()
	text, ok := files["blocks/"+name+".block.hcl"]
	if !ok {
		t.Fatalf("no blocks/%s.block.hcl among %v", name, reflect.ValueOf(files).MapKeys())
	}
	f, d := hclsyntax.ParseConfig([]byte(text), name+".block.hcl", hcl.InitialPos)
	if d.HasErrors() {
		t.Fatal(d)
	}
	var block *hclsyntax.Block
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "block" && len(b.Labels) == 1 && b.Labels[0] == name {
			block = b
		}
	}
	if block == nil {
		t.Fatalf("no block %q in\n%s", name, text)
	}
	value := func(attr string) any {
		a := block.Body.Attributes[attr]
		if a == nil {
			t.Fatalf("the block has no %s", attr)
		}
		v, d := a.Expr.Value(nil)
		if d.HasErrors() {
			t.Fatal(d)
		}
		if v.Type().IsObjectType() {
			m := map[string]string{}
			for k, e := range v.AsValueMap() {
				m[k] = e.AsString()
			}
			return m
		}
		return v.AsString()
	}
	if got := value("runtime"); got != "js" {
		t.Errorf("runtime %v", got)
	}
	if got := value("packages"); !reflect.DeepEqual(got, packages) {
		t.Errorf("packages %v, want %v", got, packages)
	}
	adapter, err := os.ReadFile(adapterFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := value("source"); strings.TrimRight(got.(string), "\n") != strings.TrimRight(string(adapter), "\n") {
		t.Errorf("the source is not the adapter %s:\n%s", adapterFile, got)
	}
	if len(text) > 20000 {
		t.Errorf("blocks/%s.block.hcl has %d bytes: something is bundled in it", name, len(text))
	}
	locks := 0
	for _, s := range next {
		if strings.Contains(s, "flowctl lock") {
			locks++
		}
		if strings.Contains(s, "expr-eval") {
			t.Errorf("the next step names the Calculator's package: %q", s)
		}
	}
	if locks != 1 {
		t.Errorf("import says to run flowctl lock %d times: %q", locks, next)
	}
}
