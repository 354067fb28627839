package n8n_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2"
)

func TestZZMeasureAI(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/real/*/*.json")
	type stat struct{ total, ok int }
	stats := map[string]*stat{}
	reasons := map[string]int{}
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		var wf struct {
			Nodes       []struct{ Name, Type string } `json:"nodes"`
			Connections map[string]map[string][][]struct{ Node string } `json:"connections"`
		}
		if json.Unmarshal(b, &wf) != nil {
			continue
		}
		res, diags := importer.Import([]importer.File{{Name: filepath.Base(p), Bytes: b}}, importer.Options{Partial: true})
		bad := map[string]string{}
		for _, d := range diags {
			o, ok := d.Extra.(importer.Origin)
			if ok && (d.Severity == hcl.DiagError || strings.Contains(d.Detail, "") && isErrSummary(d.Summary)) {
				if bad[o.Node] == "" {
					bad[o.Node] = d.Summary
				}
			}
		}
		if res == nil {
			for _, d := range diags {
				if d.Severity == hcl.DiagError && !isErrSummary(d.Summary) {
					reasons["FILE: "+d.Summary]++
				}
			}
		}
		rootOf := map[string]string{}
		for src, kinds := range wf.Connections {
			for kind, outs := range kinds {
				if kind == "main" {
					continue
				}
				for _, o := range outs {
					for _, c := range o {
						rootOf[src] = c.Node
					}
				}
			}
		}
		var failed func(name string, depth int) string
		failed = func(name string, depth int) string {
			if r := bad[name]; r != "" {
				return r
			}
			if root, ok := rootOf[name]; ok && depth < 10 {
				if r := failed(root, depth+1); r != "" {
					return "root: " + r
				}
			}
			return ""
		}
		for _, n := range wf.Nodes {
			if !strings.HasPrefix(n.Type, "@n8n/n8n-nodes-langchain.") {
				continue
			}
			s := stats[n.Type]
			if s == nil {
				s = &stat{}
				stats[n.Type] = s
			}
			s.total++
			if res == nil {
				reasons[n.Type+": file not written"]++
				continue
			}
			if r := failed(n.Name, 0); r != "" {
				reasons[n.Type+": "+r]++
				continue
			}
			s.ok++
		}
	}
	var keys []string
	tot, ok := 0, 0
	for k, s := range stats {
		keys = append(keys, k)
		tot += s.total
		ok += s.ok
	}
	sort.Slice(keys, func(i, j int) bool { return stats[keys[i]].total > stats[keys[j]].total })
	for _, k := range keys {
		fmt.Printf("%4d %4d %s\n", stats[k].total, stats[k].ok, k)
	}
	fmt.Printf("AI nodes: %d of %d convert (%.1f%%)\n", ok, tot, 100*float64(ok)/float64(tot))
	var rs []string
	for r := range reasons {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return reasons[rs[i]] > reasons[rs[j]] })
	for _, r := range rs[:min(40, len(rs))] {
		fmt.Printf("%4d %s\n", reasons[r], r)
	}
}

// With --partial every diagnostic is a warning: these summaries are errors.
func isErrSummary(s string) bool {
	switch s {
	case "Unsupported node", "Unsupported tool", "Unsupported chat model", "Unsupported memory", "Unsupported output parser", "Missing chat model",
		"Unsupported option", "Unsupported version", "Unsupported expression", "Unsupported agent", "Unsupported message", "Unsupported operation",
		"Missing model", "Missing prompt", "Unsupported schema", "Unsupported connection", "Several connections into one input", "Unsupported setting",
		"Invalid expression", "Unsupported code", "Unsupported language", "Unsupported node reference", "Invalid JSON", "Missing session key", "Unsupported field name", "Missing categories", "Missing attributes", "Missing schema", "Missing output parser":
		return true
	}
	return false
}
