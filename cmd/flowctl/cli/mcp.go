package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/mcp"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

func newMCPCommand(s streams) *cobra.Command {
	var a arguments.MCP
	cmd := &cobra.Command{
		Use:   "mcp [DIR]",
		Short: "Serve the flows under a directory as MCP tools",
		Long: `Mcp serves the flows under DIR (default .) as Model Context Protocol tools,
over standard input and output, or over streamable HTTP with --http
HOST:PORT (a bearer token as for serve: FLOWCTL_TOKEN or --token-file,
required beyond the loopback interface). Each flow is a tool named after it,
its inputs the tool's JSON Schema (flowctl tools prints them), its outputs
the structured result; a call runs the flow with the state of apply (DIR's
project's .flowctl, found as apply finds it from DIR, or --state). Flows with expose = false are left out, --only NAMES
selects flows, and flows are compiled again when their files change. See
docs/tools.md.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			dir, df, httpAddr := a.Path, &a.Dir, a.HTTP
			tokenFiles := tokenFlags{df.Tokens.TokenFile, df.Tokens.TokensFile}
			tlsFiles := tlsFlags{server.TLS{Cert: df.TLS.Cert, Key: df.TLS.Key}}
			if err := checkDir(dir); err != nil {
				return err
			}
			var tokens *server.Tokens
			var err error
			if httpAddr != "" {
				if tokens, err = tokenFiles.load("mcp", httpAddr); err != nil {
					return err
				}
				if err := tlsFiles.check(); err != nil {
					return err
				}
			}
			log, err := logFlags{df.Log.Format}.logger(s.err)
			if err != nil {
				return err
			}
			if _, diags := project.Find([]string{dir}, lang.IsFlowFile); diags.HasErrors() {
				return failDiags(nil, diags)
			}
			files := func() []string {
				found, _ := project.Find([]string{dir}, lang.IsFlowFile)
				return found
			}
			sd, err := openServedDir(s, df, dir)
			if err != nil {
				return err
			}
			defer sd.close()
			srv := mcp.New(mcp.Options{Files: files, Registries: df.Registries, GoEngine: sd.engine, Only: a.Only, Store: sd.st, Executors: sd.ex, Version: version(), Warnings: s.err, NoRecordPrompts: df.NoRecordPrompts})
			ctx, stop := interruptible()
			defer stop()
			go srv.Watch(ctx, time.Second)
			if httpAddr == "" {
				err := srv.SDK().Run(ctx, &sdk.IOTransport{Reader: readCloser{s.in}, Writer: writeCloser{s.out}})
				if err != nil && ctx.Err() == nil && !errors.Is(err, context.Canceled) {
					return err
				}
				return nil
			}
			ln, err := server.Listen(httpAddr)
			if err != nil {
				return err
			}
			tokenFiles.files().Watch(ctx, tokens, log)
			h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.SDK() }, &sdk.StreamableHTTPOptions{Logger: log})
			mux := http.NewServeMux()
			mux.Handle(mcpPath, h)
			mux.Handle("/{$}", h) // the endpoint of earlier versions
			hs := server.NewHTTPServer(server.RequireToken(tokens, server.RoleRun, mux))
			log.Info(fmt.Sprintf("Serving the flows under %s as MCP tools on %s://%s%s", dir, tlsFiles.Scheme(), ln.Addr(), mcpPath))
			return server.ServeUntil(ctx, hs, ln, tlsFiles.TLS, 5*time.Second)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

// mcpPath is the path of mcp --http's endpoint.
const mcpPath = "/mcp"

// readCloser and writeCloser give the command's streams the Close the MCP
// transport asks for; the process's own streams stay open.
type (
	readCloser  struct{ io.Reader }
	writeCloser struct{ io.Writer }
)

func (readCloser) Close() error  { return nil }
func (writeCloser) Close() error { return nil }
