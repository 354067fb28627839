package n8n

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
)

// TestOlderNodeVersion: a node older than the version of it that is
// converted is reported as such, with the version converted.
func TestOlderNodeVersion(t *testing.T) {
	for _, c := range []struct{ typ, want string }{
		{"splitInBatches", "Loop Over Items (Split in Batches) v3 is converted; this node is an older version."},
	} {
		src := `{"name": "w", "nodes": [{"name": "T", "type": "n8n-nodes-base.manualTrigger"}, {"name": "N", "type": "n8n-nodes-base.` + c.typ + `", "typeVersion": 1, "parameters": {}}], "connections": {"T": {"main": [[{"node": "N"}]]}}}`
		_, diags := importer.Import([]importer.File{{Name: "source.json", Bytes: []byte(src)}}, importer.Options{Partial: true})
		found := false
		for _, d := range diags {
			if d.Summary == "Unsupported version" {
				found = true
				if !strings.HasSuffix(d.Detail, ": "+c.want) || d.Subject == nil {
					t.Errorf("%s: %q at %v, want %q with a range", c.typ, d.Detail, d.Subject, c.want)
				}
			}
		}
		if !found {
			t.Errorf("%s v1: no Unsupported version diagnostic in %v", c.typ, diags)
		}
	}
}
