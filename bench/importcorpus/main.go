// Command importcorpus measures flowctl import on the corpus of real n8n
// workflows (importer/testdata/real, its sources in SOURCES.md): how many
// files are intact n8n workflows, how many of those import whole and how
// many with --partial, whether every flow written validates and plans
// (flowctl plan, given a value for each secret import names), and per node
// type how many nodes convert — the AI nodes (@n8n/n8n-nodes-langchain)
// counted apart. A node converts when the import without --partial
// reports no error about it; a node no trigger leads to is counted apart
// (n8n never runs it, and import leaves it out), unless it serves another
// node through an AI connection (a model, a memory, a tool: not
// converted).
//
//	go run ./bench/importcorpus [-dir importer/testdata/real] [-types 40] [-plan=false] [-v]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/bench/benchutil"
	"github.com/flowctl/flowctl/importer"
	_ "github.com/flowctl/flowctl/importer/n8n"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// aiPrefix is the package of n8n's AI nodes.
const aiPrefix = "@n8n/n8n-nodes-langchain."

type nodeCount struct{ total, converted int }

type tally struct {
	files, intact, whole, partial, written, validated, planned int
	neverRun                                                   int // nodes no trigger leads to, left out
	nodes                                                      map[string]*nodeCount
	failures                                                   map[string][]string // what failed → files
	blockers                                                   []map[string]bool   // per file not imported whole: its errors' kinds
}

func main() {
	dir := flag.String("dir", "importer/testdata/real", "the corpus: a directory of n8n workflows (*.json, at any depth)")
	types := flag.Int("types", 40, "node types to list, the most used first")
	plan := flag.Bool("plan", true, "plan every flow written (builds flowctl)")
	verbose := flag.Bool("v", false, "name the files that fail each step, and why")
	nblock := flag.Int("blockers", 0, "list this many kinds of error that block whole imports, the one that frees most files first")
	flag.Parse()
	var files []string
	benchutil.Check(filepath.WalkDir(*dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return err
	}))
	slices.Sort(files)
	var bin, tmp string
	if *plan {
		var done func()
		tmp, bin, done = benchutil.Start("importcorpus")
		defer done()
	}
	t := &tally{nodes: map[string]*nodeCount{}, failures: map[string][]string{}}
	for i, path := range files {
		src, err := os.ReadFile(path)
		benchutil.Check(err)
		t.files++
		nodes, ok := intact(src)
		if !ok {
			t.fail("not an intact n8n workflow", path)
			continue
		}
		t.intact++
		f := []importer.File{{Name: filepath.Base(path), Bytes: src}}
		res, diags := importer.Import(f, importer.Options{})
		failed := map[string]bool{}    // nodes with an error
		neverRuns := map[string]bool{} // nodes no trigger leads to: n8n never runs them either
		for _, d := range diags {
			o, ok := d.Extra.(importer.Origin)
			switch {
			case ok && d.Severity == hcl.DiagError && o.Node != "":
				failed[o.Node] = true
			case ok && d.Summary == "Node never runs":
				neverRuns[o.Node] = true
			}
		}
		for _, n := range nodes {
			if neverRuns[n.Name] && !n.sub {
				t.neverRun++
				continue
			}
			c := t.nodes[n.Type]
			if c == nil {
				c = &nodeCount{}
				t.nodes[n.Type] = c
			}
			c.total++
			if res != nil || !failed[n.Name] && !fileLevel(diags) {
				c.converted++
			}
		}
		if res != nil {
			t.whole++
		} else {
			t.fail("whole: "+firstError(diags), path)
			t.blockers = append(t.blockers, blockers(diags))
		}
		res, diags = importer.Import(f, importer.Options{Partial: true})
		if res == nil {
			t.fail("partial: "+firstError(diags), path)
			continue
		}
		t.partial++
		t.written++
		if d := importer.Check(res.Files); d.HasErrors() {
			t.fail("validate: "+firstError(d), path)
			continue
		}
		t.validated++
		if !*plan {
			continue
		}
		if why := planFlows(bin, filepath.Join(tmp, fmt.Sprint(i)), res); why != "" {
			t.fail("plan: "+why, path)
			continue
		}
		t.planned++
	}
	t.report(*types, *plan, *verbose)
	t.reportBlockers(*nblock)
}

// workflowNode is what the measure reads of an n8n node.
type workflowNode struct {
	Name string `json:"name"`
	Type string `json:"type"`
	sub  bool   // connected by other than main connections (an AI node's model, memory, tools…)
}

// intact reports whether src is an n8n workflow as n8n reads one (JSON
// with a list of nodes and connections between them, by name), and its
// nodes (sticky notes left out: they are comments).
func intact(src []byte) ([]workflowNode, bool) {
	var w struct {
		Nodes       []workflowNode             `json:"nodes"`
		Connections map[string]json.RawMessage `json:"connections"`
	}
	if err := json.Unmarshal(src, &w); err != nil || w.Nodes == nil || w.Connections == nil {
		return nil, false
	}
	names := map[string]bool{}
	for _, n := range w.Nodes {
		names[n.Name] = true
	}
	sub := map[string]bool{}
	for from, raw := range w.Connections {
		// n8n connects nodes by name: connections by anything else (some
		// collections rewrote them by node id) connect nothing in n8n.
		var kinds map[string][][]struct {
			Node string `json:"node"`
		}
		if !names[from] || json.Unmarshal(raw, &kinds) != nil {
			return nil, false
		}
		for k, outs := range kinds {
			sub[from] = sub[from] || k != "main"
			for _, out := range outs {
				for _, c := range out {
					if !names[c.Node] {
						return nil, false
					}
				}
			}
		}
	}
	var out []workflowNode
	for _, n := range w.Nodes {
		if n.Type != "n8n-nodes-base.stickyNote" {
			n.sub = sub[n.Name]
			out = append(out, n)
		}
	}
	// Several nodes and no connection between any of them: n8n runs the
	// trigger alone (some collections dropped every connection).
	if len(w.Connections) == 0 && len(out) > 1 {
		return nil, false
	}
	return out, true
}

// fileLevel reports whether diags hold an error about the whole file
// (none of its nodes then counts as converted).
func fileLevel(diags hcl.Diagnostics) bool {
	for _, d := range diags {
		if o, ok := d.Extra.(importer.Origin); d.Severity == hcl.DiagError && (!ok || o.Node == "") {
			return true
		}
	}
	return false
}

// planFlows writes res's files to dir and runs flowctl plan on each flow,
// each secret given a value; it returns why a plan failed, or "".
func planFlows(bin, dir string, res *importer.Result) string {
	for _, f := range res.Files {
		benchutil.WriteFile(filepath.Join(dir, filepath.FromSlash(f.Name)), f.Bytes)
	}
	env := os.Environ()
	for _, s := range res.Secrets {
		env = append(env, s.Env+"=secret-value")
	}
	for _, f := range res.Files {
		if !strings.HasSuffix(f.Name, ".flow.hcl") || strings.Contains(f.Name, "/") {
			continue
		}
		args := append([]string{"plan", f.Name}, toolInputs(f, res.Files)...)
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return firstLine(string(out))
		}
	}
	return ""
}

// toolInputs are sample values of the inputs without a default of a flow
// that another flow's llm step calls as a tool (flow.NAME): the model's
// arguments, which a run of the step gives.
func toolInputs(f importer.File, files []importer.File) []string {
	name := strings.TrimSuffix(f.Name, ".flow.hcl")
	called := false
	for _, o := range files {
		called = called || o.Name != f.Name && regexp.MustCompile(`\bflow\.`+regexp.QuoteMeta(name)+`\b`).Match(o.Bytes)
	}
	file, d := hclsyntax.ParseConfig(f.Bytes, f.Name, hcl.InitialPos)
	if !called || d.HasErrors() {
		return nil
	}
	samples := map[string]string{"string": "sample", "number": "1", "bool": "true"}
	var args []string
	for _, b := range file.Body.(*hclsyntax.Body).Blocks {
		if b.Type != "input" || len(b.Labels) != 1 || b.Body.Attributes["default"] != nil {
			continue
		}
		v := "sample"
		if t := b.Body.Attributes["type"]; t != nil {
			if s, ok := samples[string(t.Expr.Range().SliceBytes(f.Bytes))]; ok {
				v = s
			}
		}
		args = append(args, "--input", b.Labels[0]+"="+v)
	}
	return args
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && l != "│" {
			return strings.TrimPrefix(l, "│ ")
		}
	}
	return s
}

func firstError(diags hcl.Diagnostics) string {
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			return d.Summary
		}
	}
	return "no error"
}

// blockers are the kinds of diags' errors: each error's summary and the
// node type it is about.
func blockers(diags hcl.Diagnostics) map[string]bool {
	kinds := map[string]bool{}
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		k := d.Summary
		if o, ok := d.Extra.(importer.Origin); ok && o.Type != "" {
			k += " (" + o.Type + ")"
		}
		kinds[k] = true
	}
	return kinds
}

// reportBlockers lists the kinds of error that, removed one after the
// other (the one that would let most files import whole first), would let
// the most files not imported whole import whole.
func (t *tally) reportBlockers(n int) {
	fmt.Printf("\n%-70s %6s %6s\n", "what blocks whole imports (greedy)", "files", "total")
	removed := map[string]bool{}
	total := 0
	for range n {
		gain := map[string]int{}
		for _, b := range t.blockers {
			var left []string
			for k := range b {
				if !removed[k] {
					left = append(left, k)
				}
			}
			if len(left) == 1 {
				gain[left[0]]++
			}
		}
		best, most := "", 0
		for k, g := range gain {
			if g > most || g == most && k < best {
				best, most = k, g
			}
		}
		if most == 0 {
			break
		}
		removed[best] = true
		total += most
		fmt.Printf("%-70s %6d %6d\n", best, most, total)
	}
	in := map[string]int{}
	var kinds []string
	for _, b := range t.blockers {
		for k := range b {
			if in[k] == 0 {
				kinds = append(kinds, k)
			}
			in[k]++
		}
	}
	slices.SortFunc(kinds, func(a, b string) int {
		if d := in[b] - in[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	fmt.Printf("\n%-70s %6s\n", "kinds of error in files not imported whole", "files")
	for i, k := range kinds {
		if i == n {
			break
		}
		fmt.Printf("%-70s %6d\n", k, in[k])
	}
}

func (t *tally) fail(why, path string) { t.failures[why] = append(t.failures[why], path) }

func (t *tally) report(types int, plan, verbose bool) {
	pct := func(n, of int) string {
		if of == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
	}
	fmt.Printf("files                 %5d\n", t.files)
	fmt.Printf("intact n8n workflows  %5d\n", t.intact)
	fmt.Printf("import whole          %5d  %6s of the intact\n", t.whole, pct(t.whole, t.intact))
	fmt.Printf("import with --partial %5d  %6s of the intact\n", t.partial, pct(t.partial, t.intact))
	fmt.Printf("written flows valid   %5d  %6s of those written\n", t.validated, pct(t.validated, t.written))
	if plan {
		fmt.Printf("plan passes           %5d  %6s of those written\n", t.planned, pct(t.planned, t.written))
	}
	var ai, aiConv, all, allConv int
	var names []string
	for n, c := range t.nodes {
		names = append(names, n)
		all += c.total
		allConv += c.converted
		if strings.HasPrefix(n, aiPrefix) {
			ai += c.total
			aiConv += c.converted
		}
	}
	fmt.Printf("nodes converted       %5d of %d  %6s (and %d nodes no trigger leads to, left out)\n", allConv, all, pct(allConv, all), t.neverRun)
	fmt.Printf("AI nodes converted    %5d of %d  %6s (AI nodes: %s of all nodes)\n", aiConv, ai, pct(aiConv, ai), pct(ai, all))
	slices.SortFunc(names, func(a, b string) int {
		if d := t.nodes[b].total - t.nodes[a].total; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	fmt.Printf("\n%-55s %6s %9s\n", "node type", "nodes", "converted")
	for i, n := range names {
		if i == types {
			fmt.Printf("… %d more types\n", len(names)-types)
			break
		}
		c := t.nodes[n]
		fmt.Printf("%-55s %6d %9s\n", n, c.total, pct(c.converted, c.total))
	}
	var whys []string
	for w := range t.failures {
		whys = append(whys, w)
	}
	slices.SortFunc(whys, func(a, b string) int {
		if d := len(t.failures[b]) - len(t.failures[a]); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	fmt.Printf("\n%-70s %6s\n", "why a file fails (the first error)", "files")
	for _, w := range whys {
		fmt.Printf("%-70s %6d\n", w, len(t.failures[w]))
		if verbose {
			for _, p := range t.failures[w] {
				fmt.Printf("    %s\n", p)
			}
		}
	}
}
