package arguments

import (
	"time"

	"github.com/flowctl/flowctl/lang"
	"github.com/spf13/pflag"
)

// Serve is serve [DIR].
type Serve struct {
	Engine            Engine
	Dir               Dir
	Addr              string        // --addr
	IdempotencyExpiry time.Duration // --idempotency-expiry
	Grace             time.Duration // --shutdown-grace
	AllowedHosts      []string      // --allowed-host
	MaxActive         int           // --max-active
	MaxQueue          int           // --max-queue
	NoTakeUp          bool          // --no-take-up
	NamespaceHeader   string        // --namespace-header
	Retention         string        // --retention, as given
	// KeepFor is --retention read: how long finished runs are kept; 0
	// keeps every run.
	KeepFor time.Duration
	Notify  []string // --notify URLs
	Path    string   // DIR; "." when none is given
}

// Flags adds serve's flags.
func (a *Serve) Flags(fs *pflag.FlagSet) {
	fs.StringVar(&a.Addr, "addr", "127.0.0.1:8080", "the address to listen on")
	a.Engine.Flags(fs)
	fs.DurationVar(&a.IdempotencyExpiry, "idempotency-expiry", DefaultIdempotencyExpiry, "how long an Idempotency-Key is kept")
	fs.DurationVar(&a.Grace, "shutdown-grace", DefaultShutdownGrace, "on SIGTERM or SIGINT, how long running runs have to finish before they are interrupted")
	a.Dir.Flags(fs, "")
	fs.StringArrayVar(&a.AllowedHosts, "allowed-host", nil, "a host name that requests without a token may be sent to, besides the loopback names and --addr's (repeatable)")
	fs.IntVar(&a.MaxActive, "max-active", DefaultMaxActive, "runs at once; the others wait, queued")
	fs.IntVar(&a.MaxQueue, "max-queue", DefaultMaxQueue, "queued runs at most; more are refused with 503 (queue_full, Retry-After)")
	fs.BoolVar(&a.NoTakeUp, "no-take-up", false, "do not resume interrupted runs, when starting or while serving: a person decides (flowctl apply --resume)")
	fs.StringVar(&a.NamespaceHeader, "namespace-header", "", "a request header, set by a trusted proxy, that chooses the memory namespace of the runs a request starts")
	fs.StringVar(&a.Retention, "retention", "", "delete the finished runs that started longer ago than this (30d, 2w, 12h), at start and hourly, as runs prune --older-than does, and log what was freed (default: keep every run)")
	fs.StringArrayVar(&a.Notify, "notify", nil, "POST each finished run's summary to this URL (repeatable), signed when "+EnvNotifySecret+" is set")
}

// Args reads DIR and checks the flags.
func (a *Serve) Args(args []string) error {
	if err := maxArgs(args, 1); err != nil {
		return err
	}
	a.Path = oneOr(args, ".")
	if err := a.Engine.Args(); err != nil {
		return err
	}
	if err := a.Dir.Args(true); err != nil {
		return err
	}
	if a.MaxActive < 1 || a.MaxQueue < 1 {
		return Usagef("--max-active and --max-queue must be at least 1")
	}
	if a.IdempotencyExpiry <= 0 {
		return Usagef("--idempotency-expiry must be positive")
	}
	if a.Retention != "" {
		age, err := lang.ParseAge(a.Retention)
		if err != nil {
			return Usagef("--retention %q: %v", a.Retention, err)
		}
		a.KeepFor = age
	}
	return nil
}
