package importer_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected HCL and diagnostics of the corpus (importer/testdata)")

// The corpus: importer/testdata/FORMAT/CASE.txtar. Each case holds the
// source (source.json, and blocks.json for AgentFlow; "options" holds
// "partial" for --partial), the files import
// writes (want/…; blocks/n8n.block.hcl is compared once, with
// testdata/n8n.block.hcl), and the diagnostics (diagnostics: one line
// each, "severity path: summary"). The runs of the cases against a local
// server and a scripted model are cmd/flowctl/cli's TestImportCorpus.

// n8nBlockFile is the path of the n8n_code block's golden.
const n8nBlockFile = "testdata/n8n.block.hcl"

func TestCorpus(t *testing.T) {
	cases, err := filepath.Glob("testdata/*/*.txtar")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range cases {
		name := strings.TrimSuffix(strings.TrimPrefix(path, "testdata/"), ".txtar")
		t.Run(name, func(t *testing.T) {
			runCase(t, path)
		})
	}
}

func runCase(t *testing.T, path string) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range ar.Files {
		files[f.Name] = f.Data
	}
	src, ok := files["source.json"]
	if !ok {
		t.Fatal("no source.json")
	}
	opts := importer.Options{Partial: strings.TrimSpace(string(files["options"])) == "partial"}
	if b, ok := files["blocks.json"]; ok {
		opts.Blocks = []importer.File{{Name: "blocks.json", Bytes: b}}
	}
	res, diags := importer.Import([]importer.File{{Name: "source.json", Bytes: src}}, opts)
	again, _ := importer.Import([]importer.File{{Name: "source.json", Bytes: src}}, opts)
	got := map[string][]byte{}
	if res != nil {
		for i, f := range res.Files {
			if !bytes.Equal(f.Bytes, again.Files[i].Bytes) {
				t.Errorf("importing twice gave two versions of %s", f.Name)
			}
			if f.Name == "blocks/n8n.block.hcl" {
				checkN8NBlock(t, f.Bytes)
				continue
			}
			got["want/"+f.Name] = f.Bytes
		}
		checkCompiles(t, res.Files)
	}
	// No file holds a credential the case gives as a secret.
	for _, a := range strings.Split(string(files["run/args"]), "\n") {
		value, ok := strings.CutPrefix(a, "--secret ")
		if !ok {
			continue
		}
		_, value, _ = strings.Cut(value, "=")
		_, token := importer.SplitScheme(value)
		for name, data := range got {
			if strings.Contains(string(data), token) {
				t.Errorf("%s holds the credential %q", name, token)
			}
		}
	}
	gotDiags := diagnosticLines(diags)
	if *update {
		var out []txtar.File
		for _, f := range ar.Files {
			if !strings.HasPrefix(f.Name, "want/") && f.Name != "diagnostics" {
				out = append(out, f)
			}
		}
		for _, name := range importer.SortedKeys(got) {
			out = append(out, txtar.File{Name: name, Data: got[name]})
		}
		if gotDiags != "" {
			out = append(out, txtar.File{Name: "diagnostics", Data: []byte(gotDiags)})
		}
		ar.Files = out
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for name, data := range got {
		want, ok := files[name]
		if !ok {
			t.Errorf("import wrote %s, which the case does not expect:\n%s", name, data)
			continue
		}
		if !bytes.Equal(data, want) {
			t.Errorf("%s differs (go test ./importer -update rewrites it):\n--- got\n%s\n--- want\n%s", name, data, want)
		}
	}
	for name := range files {
		if strings.HasPrefix(name, "want/") && got[name] == nil {
			t.Errorf("import did not write %s", name)
		}
	}
	if want := string(files["diagnostics"]); gotDiags != want {
		t.Errorf("diagnostics:\n--- got\n%s--- want\n%s", gotDiags, want)
	}
}

// diagnosticLines are the diagnostics as the corpus writes them: one a
// line, its severity, JSON path, node, summary and detail.
func diagnosticLines(diags hcl.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		where := ""
		if o, ok := d.Extra.(importer.Origin); ok {
			where = " " + o.Path
			if o.Node != "" {
				where += fmt.Sprintf(" %q", o.Node)
			}
		}
		fmt.Fprintf(&b, "%s%s: %s: %s\n", sev, where, d.Summary, d.Detail)
	}
	return b.String()
}

func checkN8NBlock(t *testing.T, got []byte) {
	if *update {
		if err := os.WriteFile(n8nBlockFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(n8nBlockFile)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("blocks/n8n.block.hcl differs from %s (go test ./importer -update rewrites it)", n8nBlockFile)
	}
}

// checkCompiles writes the files to a directory and compiles each flow:
// what import writes validates.
func checkCompiles(t *testing.T, files []importer.File) {
	t.Helper()
	dir := t.TempDir()
	var flows []string
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, f.Bytes, 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f.Name, ".flow.hcl") {
			flows = append(flows, p)
		}
		if formatted, d := lang.Format(f.Bytes, f.Name); d.HasErrors() || !bytes.Equal(formatted, f.Bytes) {
			t.Errorf("%s is not fmt-clean", f.Name)
		}
	}
	sort.Strings(flows)
	for _, p := range flows {
		if _, d := compiler.Compile(p, compiler.Options{}); d.HasErrors() {
			t.Errorf("%s does not validate: %s", filepath.Base(p), d.Error())
		}
	}
}
