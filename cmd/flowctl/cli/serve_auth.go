package cli

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/flowctl/flowctl/server"
	"github.com/fsnotify/fsnotify"
	"github.com/spf13/cobra"
)

// The tokens of serve and mcp --http: one token with every role
// (FLOWCTL_TOKEN, or --token-file), or named tokens with roles
// (--tokens-file, server.ParseTokens). A token file is read again when it
// changes (a watch on its directory, which also sees an editor's or a
// secret manager's replacement of it) and on SIGHUP, so that a token
// rotates without a restart; a file that no longer reads keeps the tokens
// there were, and says why in the log.

// tokenFlags are --token-file and --tokens-file.
type tokenFlags struct {
	tokenFile, tokensFile string
}

func (f *tokenFlags) register(cmd *cobra.Command, prefix string) {
	cmd.Flags().StringVar(&f.tokenFile, "token-file", "", prefix+"a file holding the bearer token, which may do everything (default: "+envToken+")")
	cmd.Flags().StringVar(&f.tokensFile, "tokens-file", "", prefix+"a file of named tokens with roles, a line each: NAME ROLES TOKEN (see docs/serve.md)")
}

// file is the token file the flags name, "" for none.
func (f *tokenFlags) file() string {
	if f.tokensFile != "" {
		return f.tokensFile
	}
	return f.tokenFile
}

// read reads the tokens the flags and the environment give.
func (f *tokenFlags) read() ([]*server.Token, error) {
	switch {
	case f.tokensFile != "":
		b, err := os.ReadFile(f.tokensFile)
		if err != nil {
			return nil, usagef("reading --tokens-file: %v", err)
		}
		list, err := server.ParseTokens(f.tokensFile, b)
		if err != nil {
			return nil, usagef("%v", err)
		}
		return list, nil
	case f.tokenFile != "":
		b, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return nil, usagef("reading --token-file: %v", err)
		}
		token := strings.TrimSpace(string(b))
		if token == "" {
			return nil, usagef("--token-file %s is empty", f.tokenFile)
		}
		return server.SingleToken(token), nil
	}
	return server.SingleToken(os.Getenv(envToken)), nil
}

// load reads the tokens of a command that listens on addr, and refuses an
// address beyond the loopback interface without one.
func (f *tokenFlags) load(command, addr string) (*server.Tokens, error) {
	if f.tokenFile != "" && f.tokensFile != "" {
		return nil, usagef("give --token-file or --tokens-file, not both")
	}
	list, err := f.read()
	if err != nil {
		return nil, err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usagef("%q is not HOST:PORT", addr)
	}
	if ip := net.ParseIP(host); len(list) == 0 && (ip == nil || !ip.IsLoopback()) && host != "localhost" {
		return nil, usagef("%s listens beyond the loopback interface (%s) only with a token: set %s, --token-file or --tokens-file", command, addr, envToken)
	}
	return server.NewTokens(list, f.tokensFile != ""), nil
}

// watch reads the token file again when it changes or on SIGHUP, until
// ctx ends, and sets the tokens it reads. The watch is in place when it
// returns, and the file is read once more then: a change made between the
// tokens' first reading and the watch is not missed.
func (f *tokenFlags) watch(ctx context.Context, tokens *server.Tokens, log *slog.Logger) {
	file := f.file()
	if file == "" {
		return
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	var events <-chan fsnotify.Event
	w, err := fsnotify.NewWatcher()
	if err != nil {
		log.Warn("the token file is not watched (SIGHUP reads it again)", slog.String("file", file), slog.Any("error", err))
	} else if err := w.Add(filepath.Dir(file)); err != nil {
		log.Warn("the token file is not watched (SIGHUP reads it again)", slog.String("file", file), slog.Any("error", err))
	} else {
		events = w.Events
	}
	var last []byte
	reload := func(why string) {
		b, err := os.ReadFile(file)
		if err == nil && bytes.Equal(b, last) && why != "SIGHUP" {
			return // another file of the directory
		}
		list, err := f.read()
		if err != nil {
			log.Error("the token file does not read: the tokens stay as they were", slog.String("file", file), slog.Any("error", err))
			return
		}
		last = b
		tokens.Set(list)
		if why != "" {
			log.Info("tokens read again", slog.String("file", file), slog.String("why", why), slog.Int("tokens", len(list)))
		}
	}
	reload("") // the reading after the watch began
	go func() {
		defer signal.Stop(hup)
		if w != nil {
			defer w.Close()
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				reload("SIGHUP")
			case <-events:
				reload("the file changed")
			}
		}
	}()
}

// allowedHosts are the hosts a request without a token may name: the host
// of addr (unless it is every interface's) and those of --allowed-host.
func allowedHosts(addr string, more []string) []string {
	out := append([]string(nil), more...)
	if host, _, err := net.SplitHostPort(addr); err == nil && host != "" {
		if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
			out = append(out, host)
		}
	}
	return out
}
