package main

import (
	"os"
	"runtime/pprof"

	"github.com/flowctl/flowctl/cmd/flowctl/cli"
)

func main() {
	f, _ := os.Create(os.Getenv("PROF"))
	pprof.StartCPUProfile(f)
	code := cli.Main()
	pprof.StopCPUProfile()
	if m := os.Getenv("MEMPROF"); m != "" {
		g, _ := os.Create(m)
		pprof.Lookup("allocs").WriteTo(g, 0)
		g.Close()
	}
	os.Exit(code)
}
