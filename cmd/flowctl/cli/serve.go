package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/tracing"
	"github.com/flowctl/flowctl/server"
	"github.com/spf13/cobra"
)

// envNotifySecret signs the notifications of serve --notify.
const envNotifySecret = "FLOWCTL_NOTIFY_SECRET"

// shutdownGrace is how long serve waits, on SIGTERM, for requests and runs.
const shutdownGrace = 10 * time.Second

func newServeCommand(s streams) *cobra.Command {
	var addr, nsHeader string
	var hosts []string
	var grace, idemExpiry time.Duration
	var notify []string
	var df dirFlags
	var maxActive, maxQueue int
	var ef engineFlags
	var retention string
	var noTakeUp bool
	cmd := &cobra.Command{
		Use:   "serve [DIR]",
		Short: "Serve the flows under a directory over HTTP",
		Long: `Serve runs an HTTP API for the flows (*.flow.hcl) under DIR (default: the
current directory): list them, start runs, follow a run's events as
Server-Sent Events (replayed for a client that connects late), read runs
back and cancel them, explain a failed run with the model llm steps use
(FLOWCTL_MODEL…; FLOWCTL_MAX_TOKENS its budget) and accept or reject the
fix it staged. Runs use the same runtime and state as apply (DIR's
project's .flowctl, found as apply finds it from DIR, or --state). Flows are compiled again when their files change; an
edit that does not compile keeps the last good version. With FLOWCTL_TOKEN
set (16 characters at least; or --token-file, or named tokens with roles in
--tokens-file, read again when it changes and revoked when it is emptied
or deleted), every
request but the probes (/healthz, /readyz) and the dashboard's pages needs
Authorization: Bearer TOKEN; serve refuses to listen beyond the loopback
interface without one. Without a token it answers only requests for its own
host names, from no other site's page. --tls-cert and --tls-key serve HTTPS;
--log-format json writes the log as JSON. With --engine temporal the runs run on Temporal workers (flowctl
worker), which record them; approvals are sent to them. See docs/serve.md
and docs/scale-out.md.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := dirArg(args)
			if err != nil {
				return err
			}
			runEngine, err := ef.resolve()
			if err != nil {
				return err
			}
			tokens, err := df.tokens.load("serve", addr)
			if err != nil {
				return err
			}
			if err := df.tls.check(); err != nil {
				return err
			}
			log, err := df.log.logger(s.err)
			if err != nil {
				return err
			}
			if maxActive < 1 || maxQueue < 1 {
				return usagef("--max-active and --max-queue must be at least 1")
			}
			if idemExpiry <= 0 {
				return usagef("--idempotency-expiry must be positive")
			}
			var keepFor time.Duration
			if retention != "" {
				if keepFor, err = lang.ParseAge(retention); err != nil {
					return usagef("--retention %q: %v", retention, err)
				}
			}
			sd, err := df.open(s, dir)
			if err != nil {
				return err
			}
			defer sd.close()
			stopTraces := tracing.Start(s.err)
			defer stopTraces()
			var onTemporal server.Engine
			if runEngine == engineTemporal {
				runner, err := ef.onTemporal().Runner(sd.st)
				if err != nil {
					return fromBelow(err)
				}
				defer runner.Client.Close()
				onTemporal = runner
			}
			// explain's model: the llm steps' configuration (FLOWCTL_MODEL…).
			cfg, err := llm.ConfigFromEnv(os.LookupEnv)
			if err != nil {
				return usagef("%s", err)
			}
			budget, err := maxTokens(cmd, 0)
			if err != nil {
				return err
			}
			ln, err := server.Listen(addr)
			if err != nil {
				return err
			}
			srv := server.New(server.Options{
				Model: llm.NewExecutor(cfg), ModelName: cfg.Model, MaxTokens: budget,
				Dir: dir, Registries: df.registries, GoEngine: sd.engine, Store: sd.st, Executors: sd.ex, HTTP: sd.http,
				Tokens: tokens, AllowedHosts: server.AllowedHosts(addr, hosts), Logger: log, MaxActive: maxActive, MaxQueue: maxQueue, Engine: onTemporal,
				NamespaceHeader: nsHeader, IdempotencyExpiry: idemExpiry, NoTakeUp: noTakeUp, NotifyURLs: notify, NotifySecret: os.Getenv(envNotifySecret), BaseURL: df.tls.Scheme() + "://" + ln.Addr().String(),
			})
			hs := server.NewHTTPServer(srv)
			log.Info(fmt.Sprintf("Serving the flows under %s on %s://%s", dir, df.tls.Scheme(), ln.Addr()))
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			df.tokens.files().Watch(ctx, tokens, log)
			if keepFor > 0 {
				go state.Retain(ctx, sd.st, keepFor, state.RetentionEvery, log)
			}
			return srv.Serve(ctx, hs, ln, df.tls.TLS, grace, log)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "the address to listen on")
	ef.register(cmd)
	cmd.Flags().DurationVar(&idemExpiry, "idempotency-expiry", server.DefaultIdempotencyExpiry, "how long an Idempotency-Key is kept")
	cmd.Flags().DurationVar(&grace, "shutdown-grace", shutdownGrace, "on SIGTERM or SIGINT, how long running runs have to finish before they are interrupted")
	df.register(cmd, "")
	cmd.Flags().StringArrayVar(&hosts, "allowed-host", nil, "a host name that requests without a token may be sent to, besides the loopback names and --addr's (repeatable)")
	cmd.Flags().IntVar(&maxActive, "max-active", server.DefaultMaxActive, "runs at once; the others wait, queued")
	cmd.Flags().IntVar(&maxQueue, "max-queue", server.DefaultMaxQueue, "queued runs at most; more are refused with 503 (queue_full, Retry-After)")
	cmd.Flags().BoolVar(&noTakeUp, "no-take-up", false, "do not resume interrupted runs, when starting or while serving: a person decides (flowctl apply --resume)")
	cmd.Flags().StringVar(&nsHeader, "namespace-header", "", "a request header, set by a trusted proxy, that chooses the memory namespace of the runs a request starts")
	cmd.Flags().StringVar(&retention, "retention", "", "delete the finished runs that started longer ago than this (30d, 2w, 12h), at start and hourly, as runs prune --older-than does, and log what was freed (default: keep every run)")
	cmd.Flags().StringArrayVar(&notify, "notify", nil, "POST each finished run's summary to this URL (repeatable), signed when "+envNotifySecret+" is set")
	return cmd
}
