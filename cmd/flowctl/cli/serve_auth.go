package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/flowctl/flowctl/server"
	"github.com/fsnotify/fsnotify"
)

// The tokens of serve and mcp --http: one token with every role
// (FLOWCTL_TOKEN, or --token-file), or named tokens with roles
// (--tokens-file, server.ParseTokens), each of server.MinTokenLength
// characters at least. A token file is read again when it changes and on
// SIGHUP, so that a token rotates without a restart, and it fails closed:
// an emptied or deleted file revokes every token; a line that does not
// read keeps the token its name had, and gives none otherwise
// (server.Tokens.Reread); the log says why.

// tokenFlags are --token-file and --tokens-file.
type tokenFlags struct {
	tokenFile, tokensFile string
}

// file is the token file the flags name, "" for none.
func (f *tokenFlags) file() string {
	if f.tokensFile != "" {
		return f.tokensFile
	}
	return f.tokenFile
}

// read reads the tokens the flags and the environment give, at start: a
// file that does not read, or a token that is too short, is an error
// (exit 1).
func (f *tokenFlags) read() ([]*server.Token, error) {
	switch {
	case f.tokensFile != "":
		b, err := os.ReadFile(f.tokensFile)
		if err != nil {
			return nil, fmt.Errorf("reading --tokens-file: %w", err)
		}
		return server.ParseTokens(f.tokensFile, b)
	case f.tokenFile != "":
		b, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return nil, fmt.Errorf("reading --token-file: %w", err)
		}
		token := strings.TrimSpace(string(b))
		if token == "" {
			return nil, fmt.Errorf("--token-file %s is empty", f.tokenFile)
		}
		if err := server.CheckToken(token); err != nil {
			return nil, fmt.Errorf("--token-file %s: %w", f.tokenFile, err)
		}
		return server.SingleToken(token), nil
	}
	token := os.Getenv(envToken)
	if token != "" {
		if err := server.CheckToken(token); err != nil {
			return nil, fmt.Errorf("%s: %w", envToken, err)
		}
	}
	return server.SingleToken(token), nil
}

// load reads the tokens of a command that listens on addr, and refuses an
// address beyond the loopback interface without one.
func (f *tokenFlags) load(command, addr string) (*server.Tokens, error) {
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

// tokenSettle is how long the watch waits, after a change of the token
// file, for the changes that come with it (an editor's writes, a rename)
// before it reads the file: it reads it at most once a tokenSettle.
const tokenSettle = 100 * time.Millisecond

// watch reads the token file again when it changes or on SIGHUP, until
// ctx ends, and sets the tokens it reads. The watch is in place when it
// returns, and the file is read once more then: a change made between the
// tokens' first reading and the watch is not missed.
//
// It watches the file's directory, which sees a replacement by rename (an
// editor's, a secret manager's), and the file itself (which sees a write
// through another name of it: a bind mount, the target of a symbolic
// link), and takes only the events of the file: the other files of the
// directory, such as the server's own log, are not its business. The
// file is read once a change settles, and what it says (its tokens, why
// it does not read) is logged when its content changed, so that a file
// that does not read is an error in the log once a change.
func (f *tokenFlags) watch(ctx context.Context, tokens *server.Tokens, log *slog.Logger) {
	file := f.file()
	if file == "" {
		return
	}
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	var events <-chan fsnotify.Event
	var errs <-chan error
	w, err := fsnotify.NewWatcher()
	if err == nil {
		if err = w.Add(filepath.Dir(file)); err != nil {
			w.Close()
			w = nil
		}
	}
	if err != nil {
		log.Warn("the token file is not watched (SIGHUP reads it again)", slog.String("file", file), slog.Any("error", err))
	} else {
		w.Add(file) // when there is one
		events, errs = w.Events, w.Errors
	}
	// last is the content read last; gone, that there was no file.
	var last []byte
	var gone, seen bool
	reload := func(why string) {
		if w != nil {
			w.Add(file) // the file there is now (a rename replaced the one watched)
		}
		b, err := os.ReadFile(file)
		absent := errors.Is(err, fs.ErrNotExist)
		if why != "SIGHUP" && seen && err == nil && !gone && bytes.Equal(b, last) {
			return // no change
		}
		if why != "SIGHUP" && seen && absent && gone {
			return // still gone
		}
		seen, last, gone = true, b, absent
		attrs := []any{slog.String("file", file)}
		if why != "" {
			attrs = append(attrs, slog.String("why", why))
		}
		switch {
		case absent:
			tokens.Set(nil)
			log.Error("the token file is gone: every token is revoked, and requests are refused (401) until it is back", attrs...)
			return
		case err != nil:
			tokens.Set(nil)
			log.Error("the token file does not read: every token is revoked", append(attrs, slog.Any("error", err))...)
			return
		}
		err = f.reread(tokens, b)
		attrs = append(attrs, slog.Int("tokens", tokens.Len()))
		switch {
		case err != nil:
			log.Error("the token file does not read", append(attrs, slog.Any("error", err))...)
		case tokens.Len() == 0:
			log.Warn("the token file holds no token: every token is revoked, and requests are refused (401)", attrs...)
		case why != "":
			log.Info("tokens read again", attrs...)
		}
	}
	reload("") // the reading after the watch began
	go func() {
		defer signal.Stop(hup)
		if w != nil {
			defer w.Close()
		}
		var settle *time.Timer
		var settled <-chan time.Time
		changed := func() {
			if settle == nil {
				settle = time.NewTimer(tokenSettle)
				settled = settle.C
			}
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				reload("SIGHUP")
			case ev := <-events:
				if ev.Name == file {
					changed()
				}
			case err := <-errs:
				// The watch lost events (a queue overflow): read the
				// file, in case.
				log.Warn("the token file's watch", slog.String("file", file), slog.Any("error", err))
				changed()
			case <-settled:
				settle, settled = nil, nil
				reload("the file changed")
			}
		}
	}()
}

// reread sets the tokens of the token file's content b, read again; the
// error says what did not read. An empty file, or only blank lines and
// comments, revokes every token.
func (f *tokenFlags) reread(tokens *server.Tokens, b []byte) error {
	if f.tokensFile != "" {
		_, err := tokens.Reread(f.tokensFile, b)
		return err
	}
	token := strings.TrimSpace(string(b))
	if err := server.CheckToken(token); token != "" && err != nil {
		// The file's one line is the token's: it keeps the one it had.
		return fmt.Errorf("%s: %w: the token stays the one there was", f.tokenFile, err)
	}
	tokens.Set(server.SingleToken(token))
	return nil
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
