// Command flowctl validates, formats, plans and runs flows: LLM and
// automation pipelines written as HCL.
package main

import (
	"os"
	"runtime"

	"github.com/flowctl/flowctl/cmd/flowctl/cli"
)

func init() {
	// flowctl writes no heap profile: sampling allocations for one would
	// keep a record of every sampled call stack, megabytes in a long run,
	// for nothing.
	runtime.MemProfileRate = 0
}

func main() { os.Exit(cli.Main()) }
