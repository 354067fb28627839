package server

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

	"github.com/fsnotify/fsnotify"
)

// The tokens of serve and mcp --http: one token with every role
// (FLOWCTL_TOKEN, or --token-file), or named tokens with roles
// (--tokens-file, ParseTokens), each of MinTokenLength characters at
// least. A token file is read again when it changes and on SIGHUP, so
// that a token rotates without a restart, and it fails closed: an emptied
// or deleted file revokes every token; a line that does not read keeps the
// token its name had, and gives none otherwise (Tokens.Reread); the log
// says why.

// EnvToken is the bearer token serve requires when set.
const EnvToken = "FLOWCTL_TOKEN"

// TokenFiles are the files the tokens are read from: Single holds one
// token (--token-file), Named named tokens with roles (--tokens-file);
// with neither, the token is EnvToken's, if any.
type TokenFiles struct {
	Single, Named string
}

// File is the token file, "" for none.
func (f TokenFiles) File() string {
	if f.Named != "" {
		return f.Named
	}
	return f.Single
}

// Read reads the tokens the files and the environment give, at start: a
// file that does not read, or a token that is too short, is an error.
func (f TokenFiles) Read() ([]*Token, error) {
	switch {
	case f.Named != "":
		b, err := os.ReadFile(f.Named)
		if err != nil {
			return nil, fmt.Errorf("reading --tokens-file: %w", err)
		}
		return ParseTokens(f.Named, b)
	case f.Single != "":
		b, err := os.ReadFile(f.Single)
		if err != nil {
			return nil, fmt.Errorf("reading --token-file: %w", err)
		}
		token := strings.TrimSpace(string(b))
		if token == "" {
			return nil, fmt.Errorf("--token-file %s is empty", f.Single)
		}
		if err := CheckToken(token); err != nil {
			return nil, fmt.Errorf("--token-file %s: %w", f.Single, err)
		}
		return SingleToken(token), nil
	}
	token := os.Getenv(EnvToken)
	if token != "" {
		if err := CheckToken(token); err != nil {
			return nil, fmt.Errorf("%s: %w", EnvToken, err)
		}
	}
	return SingleToken(token), nil
}

// Loopback reports whether the host of addr (HOST:PORT) is the loopback
// interface's: a loopback address or localhost. A server listens beyond
// it only with a token.
func Loopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, err
	}
	ip := net.ParseIP(host)
	return (ip != nil && ip.IsLoopback()) || host == "localhost", nil
}

// tokenSettle is how long the watch waits, after a change of the token
// file, for the changes that come with it (an editor's writes, a rename)
// before it reads the file: it reads it at most once a tokenSettle.
const tokenSettle = 100 * time.Millisecond

// Watch reads the token file again when it changes or on SIGHUP, until
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
func (f TokenFiles) Watch(ctx context.Context, tokens *Tokens, log *slog.Logger) {
	file := f.File()
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
func (f TokenFiles) reread(tokens *Tokens, b []byte) error {
	if f.Named != "" {
		_, err := tokens.Reread(f.Named, b)
		return err
	}
	token := strings.TrimSpace(string(b))
	if err := CheckToken(token); token != "" && err != nil {
		// The file's one line is the token's: it keeps the one it had.
		return fmt.Errorf("%s: %w: the token stays the one there was", f.Single, err)
	}
	tokens.Set(SingleToken(token))
	return nil
}

// AllowedHosts are the hosts a request without a token may name: the host
// of addr (unless it is every interface's) and those of --allowed-host.
func AllowedHosts(addr string, more []string) []string {
	out := append([]string(nil), more...)
	if host, _, err := net.SplitHostPort(addr); err == nil && host != "" {
		if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
			out = append(out, host)
		}
	}
	return out
}
