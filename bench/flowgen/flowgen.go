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
