package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/runtime/tracing"
	"github.com/flowctl/flowctl/server"
	"github.com/spf13/cobra"
)

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
			tlsFiles := tlsFlags{server.TLS{Cert: df.TLS.Cert, Key: df.TLS.Key}}
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
			stopTraces := tracing.Start(s.err)
			defer stopTraces()
			var onTemporal server.Engine
			if runEngine == engineTemporal {
				runner, err := temporalOf(ef).Runner(sd.st)
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
			budget, err := maxTokens(0)
			if err != nil {
				return err
			}
			ln, err := server.Listen(addr)
			if err != nil {
				return err
			}
			srv := server.New(server.Options{
				Model: llm.NewExecutor(cfg), ModelName: cfg.Model, MaxTokens: budget,
				Dir: dir, NoRecordPrompts: df.NoRecordPrompts, Registries: df.Registries, GoEngine: sd.engine, Store: sd.st, Executors: sd.ex, HTTP: sd.http,
				Tokens: tokens, AllowedHosts: server.AllowedHosts(addr, a.AllowedHosts), Logger: log, MaxActive: a.MaxActive, MaxQueue: a.MaxQueue, Engine: onTemporal,
				NamespaceHeader: a.NamespaceHeader, IdempotencyExpiry: a.IdempotencyExpiry, NoTakeUp: a.NoTakeUp, NotifyURLs: a.Notify, NotifySecret: os.Getenv(envNotifySecret), BaseURL: tlsFiles.Scheme() + "://" + ln.Addr().String(),
			})
			hs := server.NewHTTPServer(srv)
			log.Info(fmt.Sprintf("Serving the flows under %s on %s://%s", dir, tlsFiles.Scheme(), ln.Addr()))
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			tokenFiles.files().Watch(ctx, tokens, log)
			if keepFor > 0 {
				go state.Retain(ctx, sd.st, keepFor, state.RetentionEvery, log)
			}
			return srv.Serve(ctx, hs, ln, tlsFiles.TLS, grace, log)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}
