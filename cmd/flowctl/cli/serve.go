package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/runtime/temporal"
	"github.com/flowctl/flowctl/runtime/tracing"
	"github.com/flowctl/flowctl/server"
	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
)

// envToken is the bearer token serve requires when set.
const envToken = "FLOWCTL_TOKEN"

// envNotifySecret signs the notifications of serve --notify.
const envNotifySecret = "FLOWCTL_NOTIFY_SECRET"

func newServeCommand(s streams) *cobra.Command {
	var a arguments.Serve
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			dir, df, ef, addr, keepFor, grace := a.Path, &a.Dir, &a.Engine, a.Addr, a.KeepFor, a.Grace
			tokenFiles := tokenFlags{df.Tokens.TokenFile, df.Tokens.TokensFile}
			tlsFiles := tlsFlags{df.TLS.Cert, df.TLS.Key}
			if err := checkDir(dir); err != nil {
				return err
			}
			runEngine, err := resolveEngine(ef)
			if err != nil {
				return err
			}
			tokens, err := tokenFiles.load("serve", addr)
			if err != nil {
				return err
			}
			if err := tlsFiles.check(); err != nil {
				return err
			}
			log, err := logFlags{df.Log.Format}.logger(s.err)
			if err != nil {
				return err
			}
			sd, err := openServedDir(s, df, dir)
			if err != nil {
				return err
			}
			defer sd.close()
			stopTraces := startTraces(s)
			defer stopTraces()
			var onTemporal server.Engine
			if runEngine == engineTemporal {
				runner, err := temporalOf(ef).Runner(sd.st)
				if err != nil {
					return fromBelow(err)
				}
				defer runner.Client.Close()
				onTemporal = temporalEngine{runner}
			}
			// explain's model: the llm steps' configuration (FLOWCTL_MODEL…).
			cfg, err := llm.ConfigFromEnv(os.LookupEnv)
			if err != nil {
				return usagef("%s", err)
			}
			budget, err := maxTokens(0)
			if err != nil {
				return err
			}
			ln, err := listen(addr)
			if err != nil {
				return err
			}
			srv := server.New(server.Options{
				Model: llm.NewExecutor(cfg), ModelName: cfg.Model, MaxTokens: budget,
				Dir: dir, Registries: df.Registries, GoEngine: sd.engine, Store: sd.st, Executors: sd.ex, HTTP: sd.http,
				Tokens: tokens, AllowedHosts: allowedHosts(addr, a.AllowedHosts), Logger: log, MaxActive: a.MaxActive, MaxQueue: a.MaxQueue, Engine: onTemporal,
				NamespaceHeader: a.NamespaceHeader, IdempotencyExpiry: a.IdempotencyExpiry, NoTakeUp: a.NoTakeUp, NotifyURLs: a.Notify, NotifySecret: os.Getenv(envNotifySecret), BaseURL: tlsFiles.scheme() + "://" + ln.Addr().String(),
			})
			hs := newHTTPServer(srv)
			log.Info(fmt.Sprintf("Serving the flows under %s on %s://%s", dir, tlsFiles.scheme(), ln.Addr()))
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			tokenFiles.watch(ctx, tokens, log)
			if keepFor > 0 {
				go retain(ctx, sd.st, keepFor, retentionEvery, log)
			}
			errc := make(chan error, 1)
			go func() { errc <- tlsFiles.serve(hs, ln) }()
			select {
			case err := <-errc:
				srv.Close()
				return err
			case <-ctx.Done():
			}
			// Stop accepting; let running runs finish for a while; stop
			// what is left and the queue, recorded as interrupted for the
			// next server to take up.
			log.Info(fmt.Sprintf("Stopping: running runs have %s to finish; the others are interrupted, and resumed by the next server.", grace))
			sctx, cancel := context.WithTimeout(context.Background(), grace)
			defer cancel()
			shut := make(chan error, 1)
			go func() { shut <- hs.Shutdown(sctx) }() // event streams end when their runs do
			all := srv.Drain(sctx)
			srv.Close()
			log.Info("stopped", slog.Bool("runs_finished", all))
			if err := <-shut; err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			return nil
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

// temporalEngine runs serve's runs on Temporal, and says for /readyz
// whether the Temporal server answers.
type temporalEngine struct{ temporal.Runner }

func (e temporalEngine) Ready(ctx context.Context) error {
	_, err := e.Client.CheckHealth(ctx, &client.CheckHealthRequest{})
	return err
}

// startTraces exports OpenTelemetry traces of runs when the environment
// asks for them (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER); the
// function it returns flushes them. A setup that fails is a warning.
func startTraces(s streams) func() {
	shutdown, err := tracing.Setup(context.Background())
	if err != nil {
		fmt.Fprintf(s.err, "Warning: traces are not exported: %v.\n", err)
		return func() {}
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			fmt.Fprintf(s.err, "Warning: exporting traces: %v.\n", err)
		}
	}
}
