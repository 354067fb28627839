package importer_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/importer/importtest"
)

// TestMalformedSources replaces each value of every corpus source in
// turn with a value of another kind (null, a string, an object, an
// array, a number; each value one of them, in turn): import must report
// what it cannot read, never panic, and write only HCL files.
func TestMalformedSources(t *testing.T) {
	replacements := []string{`null`, `"x"`, `{}`, `[]`, `7`}
	for _, c := range importtest.Cases(t, "testdata") {
		src, ok := c.Files["source.json"]
		if !ok {
			continue
		}
		parsed, d := importer.ParseSource("source.json", src)
		if d.HasErrors() {
			t.Fatalf("%s: %v", c.Name, d)
		}
		var values []*importer.JV
		var walk func(v *importer.JV)
		walk = func(v *importer.JV) {
			values = append(values, v)
			for _, k := range v.Keys {
				walk(v.Obj[k])
			}
			for _, e := range v.Arr {
				walk(e)
			}
		}
		walk(parsed.Root)
		var blocks []importer.File
		if b, ok := c.Files["blocks.json"]; ok {
			blocks = []importer.File{{Name: "blocks.json", Bytes: b}}
		}
		n := 0
		for i, v := range values {
			for _, r := range []string{replacements[i%len(replacements)]} {
				mutated := string(src[:v.Rng.Start.Byte]) + r + string(src[v.Rng.End.Byte:])
				if !json.Valid([]byte(mutated)) {
					continue
				}
				n++
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Fatalf("%s: %s as %s: panic: %v", c.Name, v.Ptr, r, p)
						}
					}()
					res, _ := importer.Import([]importer.File{{Name: "source.json", Bytes: []byte(mutated)}}, importer.Options{Blocks: blocks, Partial: true})
					if res == nil {
						return
					}
					for _, f := range res.Files {
						if !strings.HasSuffix(f.Name, ".hcl") || len(f.Bytes) == 0 {
							t.Errorf("%s: %s as %s: wrote %s", c.Name, v.Ptr, r, f.Name)
						}
					}
				}()
			}
		}
		if n == 0 {
			t.Errorf("%s: no mutations", c.Name)
		}
	}
}
