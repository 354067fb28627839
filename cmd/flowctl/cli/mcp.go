package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/mcp"
	"github.com/flowctl/flowctl/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

func newMCPCommand(s streams) *cobra.Command {
	var httpAddr, stateDir, tokenFile, sandbox, goEngine string
	var registries, only, httpAllow []string
	cmd := &cobra.Command{
		Use:   "mcp [DIR]",
		Short: "Serve the flows under a directory as MCP tools",
		Long: `Mcp serves the flows under DIR (default .) as Model Context Protocol tools,
over standard input and output, or over streamable HTTP with --http
HOST:PORT (a bearer token as for serve: FLOWCTL_TOKEN or --token-file,
required beyond the loopback interface). Each flow is a tool named after it,
its inputs the tool's JSON Schema (flowctl tools prints them), its outputs
the structured result; a call runs the flow with the state of apply (DIR's
.flowctl, or --state). Flows with expose = false are left out, --only NAMES
selects flows, and flows are compiled again when their files change. See
docs/tools.md.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return usagef("%s is not a directory", dir)
			}
			engine, err := resolveGoEngine(goEngine)
			if err != nil {
				return err
			}
			token := ""
			if httpAddr != "" {
				if token, err = listenToken("mcp", httpAddr, tokenFile); err != nil {
					return err
				}
			}
			if _, diags := findFiles([]string{dir}, lang.IsFlowFile); diags.HasErrors() {
				return failDiags(nil, diags)
			}
			files := func() []string {
				found, _ := findFiles([]string{dir}, lang.IsFlowFile)
				return found
			}
			stateDir = stateLocation(stateDir, filepath.Join(dir, ".flowctl"))
			st, err := openStateDir(stateDir)
			if err != nil {
				return err
			}
			defer st.Close()
			ex, release, err := executors(execOptions{sandbox: sandbox, goEngine: engine, httpAllow: httpAllow, warnings: s.err})
			if err != nil {
				return err
			}
			defer release()
			srv := mcp.New(mcp.Options{Files: files, Registries: registries, GoEngine: engine, Only: only, Store: st, Executors: ex, Version: version(), Warnings: s.err})
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go srv.Watch(ctx, time.Second)
			if httpAddr == "" {
				err := srv.SDK().Run(ctx, &sdk.IOTransport{Reader: readCloser{s.in}, Writer: writeCloser{s.out}})
				if err != nil && ctx.Err() == nil && !errors.Is(err, context.Canceled) {
					return err
				}
				return nil
			}
			ln, err := net.Listen("tcp", httpAddr)
			if err != nil {
				return fmt.Errorf("listening on %s: %w", httpAddr, err)
			}
			h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.SDK() }, nil)
			hs := &http.Server{Handler: server.RequireToken(token, h), ReadHeaderTimeout: 10 * time.Second}
			fmt.Fprintf(s.err, "Serving the flows under %s as MCP tools on http://%s\n", dir, ln.Addr())
			go func() {
				<-ctx.Done()
				sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				hs.Shutdown(sctx)
			}()
			if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve over streamable HTTP on HOST:PORT instead of standard input and output")
	cmd.Flags().StringVar(&stateDir, "state", "", "the state directory, or a postgres:// URL (default: "+envStateURL+", else DIR/.flowctl)")
	cmd.Flags().StringVar(&tokenFile, "token-file", "", "with --http: a file holding the bearer token (default: "+envToken+")")
	cmd.Flags().StringSliceVar(&only, "only", nil, "only these flows (comma-separated names)")
	cmd.Flags().StringArrayVar(&registries, "registry", nil, "a directory of *.block.hcl files to add to the registry (repeatable)")
	cmd.Flags().StringVar(&sandbox, "sandbox", sandboxIsolated, "where go and js blocks run: isolated or inprocess")
	cmd.Flags().StringVar(&goEngine, "go-engine", "", goEngineUsage)
	cmd.Flags().StringArrayVar(&httpAllow, "http-allow", nil, "where http and scrape steps may connect, as for apply")
	return cmd
}

// readCloser and writeCloser give the command's streams the Close the MCP
// transport asks for; the process's own streams stay open.
type (
	readCloser  struct{ io.Reader }
	writeCloser struct{ io.Writer }
)

func (readCloser) Close() error  { return nil }
func (writeCloser) Close() error { return nil }
