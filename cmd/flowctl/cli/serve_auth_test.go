package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// replaceFile replaces a file atomically (a temporary file renamed over
// it), as a secret manager does: the server reads it once, whole.
func replaceFile(t *testing.T, file, src string) {
	t.Helper()
	tmp := file + ".new"
	writeFile(t, tmp, src)
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
}

// until waits for ok, and fails the test after a minute (a bound for a
// failure, not a measure).
func until(t *testing.T, what string, log fmt.Stringer, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after a minute\n%s", what, log)
		}
	}
}

// code is the status of GET /v1/runs with a token.
func (p *serveProc) code(token string) int {
	p.t.Helper()
	return p.do("GET", "/v1/runs", "", nil, "Authorization", "Bearer "+token)
}

const (
	anaToken1, anaToken2 = "ana-token-0000001", "ana-token-0000002"
	ciToken1, ciToken2   = "ci-token-00000001", "ci-token-00000002"
	eveToken             = "eve-token-0000001"
)

// startTokensServe starts serve with a tokens file of ana, ci and eve.
func startTokensServe(t *testing.T) (*serveProc, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := serveDir(t)
	writeFile(t, filepath.Join(dir, "mail.flow.hcl"), approvalServeFlow)
	file := filepath.Join(t.TempDir(), "tokens")
	writeFile(t, file, "ana read,approve "+anaToken1+"\nci read,run "+ciToken1+"\neve read "+eveToken+"\n")
	return startServe(t, dir, nil, "--tokens-file", file), file
}

// TestServeTokensEmptied: an emptied tokens file revokes every token
// (401), as does an emptied --token-file; the server does not become one
// without tokens.
func TestServeTokensEmptied(t *testing.T) {
	p, file := startTokensServe(t)
	if code := p.code(anaToken1); code != 200 {
		t.Fatalf("ana before: %d", code)
	}
	replaceFile(t, file, "# nobody\n")
	until(t, "every token revoked", p.stderr, func() bool { return p.code(anaToken1) == 401 })
	for _, token := range []string{ciToken1, eveToken, ""} {
		if code := p.code(token); code != 401 {
			t.Errorf("%q after the file was emptied: %d", token, code)
		}
	}
	until(t, "the log says so", p.stderr, func() bool { return strings.Contains(p.stderr.String(), "the token file holds no token") })

	single := filepath.Join(t.TempDir(), "token")
	writeFile(t, single, ciToken1+"\n")
	q := startServe(t, serveDir(t), nil, "--token-file", single)
	if code := q.code(ciToken1); code != 200 {
		t.Fatalf("the --token-file token: %d", code)
	}
	replaceFile(t, single, "")
	until(t, "the --token-file token revoked", q.stderr, func() bool { return q.code(ciToken1) == 401 })
	if code := q.do("GET", "/v1/runs", "", nil); code != 401 {
		t.Errorf("no token after --token-file was emptied: %d", code)
	}
}

// TestServeTokensDeleted: a deleted tokens file revokes every token; serve
// goes on, answers 401 and says why in its log, and takes the tokens of
// the file when it is back.
func TestServeTokensDeleted(t *testing.T) {
	p, file := startTokensServe(t)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	until(t, "every token revoked", p.stderr, func() bool { return p.code(anaToken1) == 401 })
	if code := p.code(ciToken1); code != 401 {
		t.Errorf("ci after the file was deleted: %d", code)
	}
	until(t, "the log says why", p.stderr, func() bool { return strings.Contains(p.stderr.String(), "the token file is gone") })
	if code := p.do("GET", "/healthz", "", nil); code != 200 {
		t.Errorf("healthz: %d", code)
	}
	replaceFile(t, file, "ci read "+ciToken2+"\n")
	until(t, "the file back", p.stderr, func() bool { return p.code(ciToken2) == 200 })
}

// TestServeTokensTypo: a tokens file with a typo on a line: the lines that
// read give their tokens, the broken line keeps the token its name had,
// a broken line of a name that had none gives none, a name whose line is
// gone is revoked, and the log says which line and what became of it.
func TestServeTokensTypo(t *testing.T) {
	p, file := startTokensServe(t)
	replaceFile(t, file, "ana read,aprove "+anaToken2+"\nci read,run "+ciToken2+"\ndan read dan\n")
	until(t, "ci's new token", p.stderr, func() bool { return p.code(ciToken2) == 200 })
	for token, want := range map[string]int{anaToken1: 200, anaToken2: 401, ciToken1: 401, eveToken: 401, "dan": 401} {
		if code := p.code(token); code != want {
			t.Errorf("%s: %d, want %d", token, code, want)
		}
	}
	// ana keeps her roles too: she may not start a run.
	if code := p.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "x"}}`, nil, "Authorization", "Bearer "+anaToken1); code != 403 {
		t.Errorf("ana starts a run: %d", code)
	}
	for _, want := range []string{"the token file does not read", `unknown role \"aprove\"`, "ana keeps the token it had", `token \"dan\": a token has at least 16 characters, not 3`} {
		until(t, "the log says "+want, p.stderr, func() bool { return strings.Contains(p.stderr.String(), want) })
	}
}

// TestServeTokenStreamRevoked: the open event stream of a token that a
// rotation revokes ends; another token's stream of the same run goes on.
func TestServeTokenStreamRevoked(t *testing.T) {
	p, file := startTokensServe(t)
	p.token = ciToken1
	var r runReply
	if code := p.do("POST", "/v1/flows/mail/runs", `{"inputs": {"to": "Ada"}}`, &r); code != 202 {
		t.Fatalf("start: %d %+v", code, r)
	}
	p.waitStatus(r.RunID, "waiting")
	ended := func(token string) <-chan []sseEvent {
		p.token = token
		st := p.openEvents(r.RunID, "")
		done := make(chan []sseEvent, 1)
		go func() {
			defer st.close()
			var evs []sseEvent
			for {
				e, ok := st.next()
				if !ok {
					done <- evs
					return
				}
				evs = append(evs, e)
			}
		}()
		return done
	}
	eve, ana := ended(eveToken), ended(anaToken1)
	replaceFile(t, file, "ana read,approve "+anaToken1+"\nci read,run "+ciToken1+"\n")
	select {
	case <-eve:
	case <-time.After(time.Minute): // a bound for a failure, not a measure
		t.Fatalf("eve's stream is still open a minute after her token was revoked\n%s", p.stderr)
	}
	select {
	case evs := <-ana:
		t.Errorf("ana's stream ended: %+v", evs)
	default:
	}
	// ana's goes on to the run's end.
	p.token = anaToken1
	if code := p.do("POST", "/v1/runs/"+r.RunID+"/approvals/review", `{"approved": true}`, nil); code != 200 {
		t.Fatalf("ana decides: %d", code)
	}
	select {
	case evs := <-ana:
		if len(evs) == 0 || evs[len(evs)-1].event != "run_finished" {
			t.Errorf("ana's stream ends with %+v", evs)
		}
	case <-time.After(time.Minute):
		t.Fatal("ana's stream did not end with the run")
	}
}

// TestServeTokensFileLogBeside: a tokens file that does not read, beside
// the server's own log (a change of the directory a line), is an error in
// the log once, not once a line of the log: the watch takes only the
// file's events. (It was 57,000 lines in 3 seconds.)
func TestServeTokensFileLogBeside(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	file, logFile := filepath.Join(dir, "tokens"), filepath.Join(dir, "serve.log")
	writeFile(t, file, "ana read "+anaToken1+"\n")
	logw, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer logw.Close()
	cmd := flowctl(t, serveDir(t), "serve", "--addr", "127.0.0.1:0", "--sandbox", "inprocess", "--tokens-file", file)
	cmd.Stderr = logw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Error("serve did not stop after SIGTERM")
		}
	})
	logged := logText(logFile)
	addr := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)
	until(t, "serve listens", logged, func() bool { return addr.MatchString(logged.String()) })
	p := &serveProc{t: t, url: addr.FindStringSubmatch(logged.String())[1], client: http.DefaultClient, token: anaToken1}

	replaceFile(t, file, "ana read "+anaToken1+"\nbob reed "+ciToken1+"\n")
	until(t, "the error", logged, func() bool { return strings.Contains(logged.String(), "the token file does not read") })
	// Requests, each a line of the log, while the file does not read.
	for range 5 {
		if code := p.code(anaToken1); code != 200 {
			t.Fatalf("ana: %d", code)
		}
	}
	until(t, "the requests logged", logged, func() bool { return strings.Count(logged.String(), "msg=request") >= 5 })
	replaceFile(t, file, "ana read "+anaToken1+"\nbob read "+ciToken1+"\n")
	until(t, "the file read again", logged, func() bool { return strings.Contains(logged.String(), "tokens read again") })
	out := logged.String()
	if n := strings.Count(out, "the token file does not read"); n != 1 {
		t.Errorf("the error is logged %d times, want once; the log has %d lines", n, strings.Count(out, "\n"))
	}
}

// logText is a log file's text, read when asked.
type logText string

func (f logText) String() string {
	b, _ := os.ReadFile(string(f))
	return string(b)
}

// TestServeShortToken: a token shorter than 16 characters is refused at
// start, with exit 1 and an error that says so (and not the token):
// FLOWCTL_TOKEN, --token-file, a line of --tokens-file, and mcp --http's.
// A lowercase "bearer" is a bearer token (RFC 7235).
func TestServeShortToken(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := serveDir(t)
	short := filepath.Join(t.TempDir(), "short")
	writeFile(t, short, "s3cret\n")
	tokens := filepath.Join(t.TempDir(), "tokens")
	writeFile(t, tokens, "ana read "+anaToken1+"\nci read,run s3cret\n")
	for _, c := range []struct {
		env  string
		args []string
		want string
	}{
		{"FLOWCTL_TOKEN=s3cret", []string{"serve"}, "FLOWCTL_TOKEN: a token has at least 16 characters, not 6"},
		{"", []string{"serve", "--token-file", short}, "--token-file " + short + ": a token has at least 16 characters, not 6"},
		{"", []string{"serve", "--tokens-file", tokens}, tokens + `:2: token "ci": a token has at least 16 characters, not 6`},
		{"FLOWCTL_TOKEN=s3cret", []string{"mcp", "--http"}, "FLOWCTL_TOKEN: a token has at least 16 characters, not 6"},
	} {
		cmd := flowctl(t, dir, append(c.args, "127.0.0.1:0")...)
		if c.args[0] == "serve" {
			cmd = flowctl(t, dir, append(c.args, "--addr", "127.0.0.1:0")...)
		}
		cmd.Env = append(cmd.Env, c.env)
		timer := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() }) // it serves: a failure
		out, err := cmd.CombinedOutput()
		timer.Stop()
		if err == nil || cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), c.want) || strings.Contains(string(out), "s3cret") {
			t.Errorf("%s %v: %v, want exit 1 and %q\n%s", c.env, c.args, err, c.want, out)
		}
	}

	p := startServe(t, dir, []string{"FLOWCTL_TOKEN=" + anaToken1})
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		if code := p.do("GET", "/v1/flows", "", nil, "Authorization", scheme+" "+anaToken1); code != 200 {
			t.Errorf("%s: %d", scheme, code)
		}
	}
}
