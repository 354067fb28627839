// Command flowctl validates, formats, plans and runs flows: LLM and
// automation pipelines written as HCL.
package main

import (
	"os"

	"github.com/flowctl/flowctl/cmd/flowctl/cli"
)

func main() { os.Exit(cli.Main()) }
