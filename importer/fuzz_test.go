package importer_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/importer/importtest"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// FuzzImport gives import any bytes as a source, each format detected and
// forced, with and without --partial: it must never panic; every error
// has a place in the source (a range, and the JSON path of what it
// concerns); when there is an error and no --partial nothing is written;
// what is written is formatted HCL, the same bytes when imported again.
// The seeds are the corpus's sources and bad input of each kind.
//
//	go test ./importer -run '^$' -fuzz FuzzImport -fuzztime 2m
func FuzzImport(f *testing.F) {
	for _, c := range importtest.Cases(f, "testdata") {
		if src, ok := c.Files["source.json"]; ok {
			f.Add(src)
		}
	}
	for _, s := range []string{
		``, `nul`, `{`, `[]`, `{"steps": [}`, `{"name": 1, "steps": {}}`,
		`{"name": "x", "steps": [{"type": "start", "config": {"variables": 7}}]}`,
		`{"name": "x", "steps": [{"type": "apiCall", "config": {"url": "${a.b[", "method": "POST", "bodyType": "json", "body": "{${x}"}}]}`,
		`{"id": "p", "nodes": [{"id": "n1", "block_id": "b", "inputs": {"q": "{{n2.x}}"}}], "edges": [{"from": "n1", "to": "n1"}]}`,
		`{"name": "w", "nodes": [{"name": "T", "type": "n8n-nodes-base.manualTrigger"}, {"name": "C", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"jsCode": "return [{"}}], "connections": {"T": {"main": [[{"node": "C"}]]}}}`,
		`{"name": "w", "nodes": [{"name": "T", "type": "n8n-nodes-base.manualTrigger"}, {"name": "S", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"name": "a", "value": "={{ $now.toISO() }} {{ $json.x + }}", "type": "string"}]}}}], "connections": {"T": {"main": [[{"node": "S"}]]}}}`,
		`{"name": "w", "nodes": [{"name": "T", "type": "n8n-nodes-base.manualTrigger"}, {"name": "X", "type": "n8n-nodes-base.slack"}], "connections": {"T": {"main": [[{"node": "X"}, {"node": "Nope"}]]}, "Y": {}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, from := range append([]importer.Format{""}, importer.Formats...) {
			for _, partial := range []bool{false, true} {
				checkImport(t, src, importer.Options{From: from, Partial: partial})
			}
		}
	})
}

func checkImport(t *testing.T, src []byte, opts importer.Options) {
	t.Helper()
	res, diags := importer.Import([]importer.File{{Name: "source.json", Bytes: src}}, opts)
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		if d.Subject == nil || d.Summary == "" || d.Detail == "" {
			t.Fatalf("from %q: an error without a place or a reason: %+v", opts.From, d)
		}
		if o, ok := d.Extra.(importer.Origin); ok && (o.File != "source.json" || !strings.HasPrefix(o.Path, "/")) {
			t.Fatalf("from %q: an error whose origin is not a JSON path of the source: %+v", opts.From, o)
		}
	}
	if res == nil {
		if !diags.HasErrors() {
			t.Fatalf("from %q: nothing written and no error", opts.From)
		}
		return
	}
	if diags.HasErrors() && !opts.Partial {
		t.Fatalf("from %q: files written despite errors: %v", opts.From, diags)
	}
	again, _ := importer.Import([]importer.File{{Name: "source.json", Bytes: src}}, opts)
	for i, file := range res.Files {
		if !strings.HasSuffix(file.Name, ".hcl") {
			t.Fatalf("wrote %s", file.Name)
		}
		if formatted, d := lang.Format(file.Bytes, file.Name); d.HasErrors() || !bytes.Equal(formatted, file.Bytes) {
			t.Fatalf("from %q: %s is not formatted HCL: %v\n%s", opts.From, file.Name, d, file.Bytes)
		}
		if again == nil || len(again.Files) != len(res.Files) || !bytes.Equal(again.Files[i].Bytes, file.Bytes) {
			t.Fatalf("from %q: importing twice gave two versions of %s", opts.From, file.Name)
		}
	}
}
