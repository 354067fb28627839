package runner

import (
	"encoding/json"
	"flag"
	"os"
	"runtime/debug"
	"time"
)

// cfg is the worker's configuration, from its command line.
var cfg struct {
	memory  int64
	cpu     time.Duration
	stack   int
	output  int      // bytes of a call's outputs as JSON; 0 for no cap
	missing []string // confinement layers it runs without, with why
}

// init confines a program started as a worker before the block's package
// is initialized (the block's package imports this one, so its variables
// are initialized after this runs).
func init() {
	if len(os.Args) < 2 || os.Args[1] != WorkerArg {
		return
	}
	fs := flag.NewFlagSet(WorkerArg, flag.ContinueOnError)
	fs.Int64Var(&cfg.memory, "memory", 512<<20, "")
	fs.DurationVar(&cfg.cpu, "cpu", 5*time.Minute, "")
	fs.IntVar(&cfg.stack, "stack", 64<<20, "")
	fs.IntVar(&cfg.output, "output", 16<<20, "")
	statusFD := fs.Int("statusfd", -1, "")
	filter := fs.String("seccomp", "", "")
	seccompNr := fs.Int("seccomp-nr", 0, "")
	missing := fs.String("missing", "", "")
	if err := fs.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	if *missing != "" {
		_ = json.Unmarshal([]byte(*missing), &cfg.missing)
	}
	debug.SetMaxStack(cfg.stack)
	// The garbage collector works harder as the heap nears the budget;
	// RLIMIT_AS is the hard stop.
	debug.SetMemoryLimit(cfg.memory)
	debug.SetGCPercent(400)
	if err := limitMemory(*statusFD, cfg.memory); err != nil {
		cfg.missing = append(cfg.missing, "the memory limit ("+err.Error()+")")
	}
	if *filter != "" {
		if err := installSeccomp(*seccompNr, *filter); err != nil {
			cfg.missing = append(cfg.missing, "the seccomp system call filter ("+err.Error()+")")
		}
	}
}
