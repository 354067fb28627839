package main

import (
	"os"

	"github.com/flowctl/flowctl/bench/flowgen"
)

func main() { os.Stdout.Write(flowgen.Chains(100, 100)) }
