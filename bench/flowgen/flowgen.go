// Package flowgen writes synthetic flows for benchmarks.
package flowgen

import (
	"fmt"
	"strings"
)

// Chains returns a flow of chains × length value steps: each chain starts
// from the input "start" and every step adds one to the step before it. Its
// DAG has length stages of chains steps each.
func Chains(chains, length int) []byte {
	var b strings.Builder
	b.WriteString("flow \"chains\" {}\n\ninput \"start\" {\n  type    = number\n  default = 0\n}\n")
	for c := 0; c < chains; c++ {
		for i := 0; i < length; i++ {
			prev := "input.start"
			if i > 0 {
				prev = fmt.Sprintf("step.c%d_%d.value", c, i-1)
			}
			fmt.Fprintf(&b, "\nstep \"c%d_%d\" {\n  use   = \"value\"\n  value = %s + 1\n}\n", c, i, prev)
		}
	}
	for c := 0; c < chains; c++ {
		fmt.Fprintf(&b, "\noutput \"chain_%d\" {\n  value = step.c%d_%d.value\n}\n", c, c, length-1)
	}
	return []byte(b.String())
}

// Skewed returns two independent chains of sleep steps: chain A of 10 ×
// 30ms and chain B of one 300ms step and 9 × 1ms. The critical path is
// chain B (309ms); a stage-by-stage scheduler would wait for the slowest
// step of every stage and take about 1.8 times as long.
func Skewed() []byte {
	var b strings.Builder
	b.WriteString("flow \"skewed\" {}\n")
	chain := func(name string, durations []string) {
		for i, d := range durations {
			dep := ""
			if i > 0 {
				dep = fmt.Sprintf("  depends_on = [step.%s%d]\n", name, i-1)
			}
			fmt.Fprintf(&b, "\nstep \"%s%d\" {\n  use      = \"sleep\"\n  duration = %q\n%s}\n", name, i, d, dep)
		}
	}
	a := make([]string, 10)
	for i := range a {
		a[i] = "30ms"
	}
	chain("a", a)
	chain("b", []string{"300ms", "1ms", "1ms", "1ms", "1ms", "1ms", "1ms", "1ms", "1ms", "1ms"})
	return []byte(b.String())
}

// FanOut returns one for_each step of n sleep instances of duration d.
func FanOut(n int, d string) []byte {
	return []byte(fmt.Sprintf("flow \"fanout\" {}\n\nstep \"wait\" {\n  use      = \"sleep\"\n  for_each = range(%d)\n  duration = %q\n}\n", n, d))
}

// Requests returns one for_each step of http GET requests, one per URL.
func Requests(urls []string) []byte {
	var b strings.Builder
	b.WriteString("flow \"requests\" {}\n\nstep \"get\" {\n  use      = \"http\"\n  for_each = [\n")
	for _, u := range urls {
		fmt.Fprintf(&b, "    %q,\n", u)
	}
	b.WriteString("  ]\n  url = each.value\n}\n")
	return []byte(b.String())
}

// Chain returns a flow of n value steps, each adding one to the one before.
func Chain(n int) []byte { return Chains(1, n) }

// HTTPChain returns a flow of n http steps in a chain: each GETs
// base/N with the path the one before it got.
func HTTPChain(n int, base string) []byte {
	var b strings.Builder
	b.WriteString("flow \"httpchain\" {}\n")
	for i := 0; i < n; i++ {
		prev := `""`
		if i > 0 {
			prev = fmt.Sprintf("step.h%d.text", i-1)
		}
		fmt.Fprintf(&b, "\nstep \"h%d\" {\n  use = \"http\"\n  url = \"%s/%d?after=${urlencode(%s)}\"\n}\n", i, base, i, prev)
	}
	fmt.Fprintf(&b, "\noutput \"last\" {\n  value = step.h%d.text\n}\n", n-1)
	return []byte(b.String())
}

// ForEach returns a flow with one for_each step over its input "items", a
// list of records (Items): with js false a value step that reshapes each
// record, with js true a js block that does.
func ForEach(js bool) []byte {
	var b strings.Builder
	b.WriteString("flow \"foreach\" {}\n\ninput \"items\" {\n  type = list(object({ id = number, name = string }))\n}\n")
	if js {
		b.WriteString(`
block "shape" {
  runtime = "js"
  source  = "function execute(input) { return { id: input.item.id, name: input.item.name.toUpperCase() } }"
  input "item" {
    type = object({ id = number, name = string })
  }
  output "id" {
    type = number
  }
  output "name" {
    type = string
  }
}

step "each" {
  use      = "shape"
  for_each = input.items
  item     = each.value
}
`)
	} else {
		b.WriteString(`
step "each" {
  use      = "value"
  for_each = input.items
  value    = { id = each.value.id, name = upper(each.value.name) }
}
`)
	}
	b.WriteString("\noutput \"count\" {\n  value = length(step.each)\n}\n")
	return []byte(b.String())
}

// Items returns the JSON of an --input-file giving ForEach's input n
// records.
func Items(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"items": [`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": %d, "name": "item %d"}`, i, i)
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}
