package server

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// Who may do what. A request with a valid bearer token may do what the
// token's roles allow; without tokens (the default, on loopback), any
// request may do anything, so that the requests a browser can be made to
// send by a page of another site, or of a name that resolves to the
// loopback address (DNS rebinding), are refused (guard.go).

// A Role is what a token allows.
type Role string

// The roles.
const (
	RoleRead    Role = "read"    // the flows, runs and events; metrics
	RoleRun     Role = "run"     // start and cancel runs
	RoleApprove Role = "approve" // decide approval steps
	// RoleAuthor accepts and rejects proposals, which write the flows'
	// files; one that weakens a flow takes approve as well (proposals.go).
	RoleAuthor Role = "author"
)

var allRoles = []Role{RoleRead, RoleRun, RoleApprove, RoleAuthor}

// A Token is a bearer token with a name (an approval's "by") and roles.
type Token struct {
	Name  string
	Roles []Role
	// hash is the token's SHA-256 (the file's sha256:HEX, or the sum of
	// the token it gave): only digests are compared.
	hash [sha256.Size]byte
}

// MinTokenLength is the length a token has at least: a shorter one is
// refused (a token file's line, FLOWCTL_TOKEN).
const MinTokenLength = 16

// CheckToken says why a token is refused: shorter than MinTokenLength.
// The error does not say the token.
func CheckToken(secret string) error {
	if n := len(secret); n < MinTokenLength {
		return fmt.Errorf("a token has at least %d characters, not %d (openssl rand -hex 32 makes one)", MinTokenLength, n)
	}
	return nil
}

// matches reports whether got is the token.
func (t *Token) matches(got string) bool { return t.is(sha256.Sum256([]byte(got))) }

// is reports whether sum is the token's digest, in constant time: what is
// compared is a digest of a fixed length, so that neither the time taken
// nor the token's length tells anything of it.
func (t *Token) is(sum [sha256.Size]byte) bool {
	return subtle.ConstantTimeCompare(sum[:], t.hash[:]) == 1
}

// Allows reports whether the token has a role.
func (t *Token) Allows(r Role) bool { return slices.Contains(t.Roles, r) }

// Tokens are the tokens a server accepts; Set replaces them while it
// serves (a rotation, a revocation). A set that never had a token
// requires none; one that had tokens requires one for good: a revocation
// that leaves it empty refuses every request, it does not open the
// server. Its methods are safe for concurrent use.
type Tokens struct {
	mu   sync.RWMutex
	list []*Token
	// needed: the set had tokens, and requests need one.
	needed bool
	// changed is closed, and replaced, by each Set: the streams of a
	// request whose token a Set revoked end (untilRevoked).
	changed chan struct{}
	// named: the tokens have names of their own (a tokens file), which
	// approvals record as who decided.
	named bool
}

// SingleToken is one token with every role (FLOWCTL_TOKEN,
// --token-file); "" is no token. CheckToken says whether it is long
// enough.
func SingleToken(secret string) []*Token {
	if secret == "" {
		return nil
	}
	return []*Token{{Name: "token", Roles: allRoles, hash: sha256.Sum256([]byte(secret))}}
}

// NewTokens is a set of tokens; named says whether their names say who
// they are (ParseTokens's are).
func NewTokens(list []*Token, named bool) *Tokens {
	return &Tokens{list: list, needed: len(list) > 0, changed: make(chan struct{}), named: named}
}

// Set replaces the tokens; the open streams of the tokens it revokes end.
func (ts *Tokens) Set(list []*Token) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.list = list
	ts.needed = ts.needed || len(list) > 0
	if ts.changed != nil {
		close(ts.changed)
	}
	ts.changed = make(chan struct{})
}

// Len is how many tokens the set has.
func (ts *Tokens) Len() int {
	ts.mu.RLock()
	defer ts.mu.RUnlock()
	return len(ts.list)
}

// required reports whether requests need a token: the set has, or had,
// tokens.
func (ts *Tokens) required() bool {
	if ts == nil {
		return false
	}
	ts.mu.RLock()
	defer ts.mu.RUnlock()
	return ts.needed
}

// bearer is the token of an Authorization header, "" without one. The
// scheme is case-insensitive (RFC 7235).
func bearer(h string) string {
	scheme, got, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(got)
}

// find is the token a request carries, nil when it carries none of the
// set's.
func (ts *Tokens) find(r *http.Request) *Token {
	return ts.lookup(bearer(r.Header.Get("Authorization")))
}

// lookup is the token got is, nil when it is none of the set's. Every
// token is compared, so that the time taken tells nothing.
func (ts *Tokens) lookup(got string) *Token {
	if got == "" || ts == nil {
		return nil
	}
	sum := sha256.Sum256([]byte(got))
	ts.mu.RLock()
	defer ts.mu.RUnlock()
	var found *Token
	for _, t := range ts.list {
		if t.is(sum) && found == nil {
			found = t
		}
	}
	return found
}

// ParseTokens reads a tokens file: a line a token, `NAME ROLES TOKEN`,
// ROLES comma-separated (read, run, approve, author), TOKEN the token, of
// MinTokenLength characters at least, or sha256:HEX, the hex SHA-256 of
// it; blank lines and lines starting with # are skipped. Names are unique,
// and so are tokens. The error says every line that does not read.
func ParseTokens(file string, b []byte) ([]*Token, error) {
	lines, err := parseTokenLines(file, b)
	if err != nil {
		return nil, err
	}
	var out []*Token
	var errs []error
	for _, l := range lines {
		if l.err != nil {
			errs = append(errs, l.err)
		} else if !l.twice {
			out = append(out, l.token)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no token", file)
	}
	return out, nil
}

// A tokenLine is a line of a tokens file that is neither blank nor a
// comment: its token, or why it does not read.
type tokenLine struct {
	name  string // its first word
	token *Token // nil when err
	err   error
	// twice: its name, or its token, is another line's too (the later
	// line's err says so).
	twice bool
}

// parseTokenLines reads a tokens file's lines. The error is the file's
// as a whole: a line too long to read.
func parseTokenLines(file string, b []byte) ([]tokenLine, error) {
	var out []tokenLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	names, secrets := map[string]int{}, map[[sha256.Size]byte]int{}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		l := tokenLine{name: f[0]}
		if i, ok := names[l.name]; ok {
			out[i].twice, l.twice = true, true
			l.err = fmt.Errorf("%s:%d: a second token named %q", file, n, l.name)
		} else {
			names[l.name] = len(out)
			if l.token, l.err = parseTokenLine(f); l.err != nil {
				l.err = fmt.Errorf("%s:%d: %w", file, n, l.err)
			} else if i, ok := secrets[l.token.hash]; ok {
				out[i].twice, l.twice = true, true
				l.token, l.err = nil, fmt.Errorf("%s:%d: token %q is the same as an earlier one", file, n, l.name)
			} else {
				secrets[l.token.hash] = len(out)
			}
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return out, nil
}

// parseTokenLine reads the fields of a line: NAME ROLES TOKEN.
func parseTokenLine(f []string) (*Token, error) {
	if len(f) != 3 {
		return nil, fmt.Errorf("a line is NAME ROLES TOKEN, not %d fields", len(f))
	}
	t := &Token{Name: f[0]}
	for _, r := range strings.Split(f[1], ",") {
		if !slices.Contains(allRoles, Role(r)) {
			return nil, fmt.Errorf("unknown role %q (the roles are read, run, approve and author)", r)
		}
		if !t.Allows(Role(r)) {
			t.Roles = append(t.Roles, Role(r))
		}
	}
	if hexSum, ok := strings.CutPrefix(f[2], "sha256:"); ok {
		sum, err := hex.DecodeString(hexSum)
		if err != nil || len(sum) != sha256.Size {
			return nil, fmt.Errorf("sha256: is followed by the 64 hex digits of a SHA-256")
		}
		t.hash = [sha256.Size]byte(sum)
	} else {
		if err := CheckToken(f[2]); err != nil {
			return nil, fmt.Errorf("token %q: %w", t.Name, err)
		}
		t.hash = sha256.Sum256([]byte(f[2]))
	}
	return t, nil
}

// Reread sets the tokens of a tokens file read again while serving (b),
// and fails closed. A line that reads gives its token. A line that does
// not read keeps the token its name (the line's first word) had, with the
// roles it had, when the set had one, and gives none otherwise: a typo
// neither locks a token out nor lets a token in that was not. Two lines
// with one name, or one token, give none. The tokens of names no line
// gives are revoked; an empty file revokes them all, and so does one that
// does not read as lines (a line longer than 64 KiB). It returns the
// tokens set; the error says each line that did not read, and what became
// of it. The set's tokens are set by Reread alone.
func (ts *Tokens) Reread(file string, b []byte) ([]*Token, error) {
	lines, err := parseTokenLines(file, b)
	if err != nil {
		ts.Set(nil)
		return nil, fmt.Errorf("%w: every token is refused", err)
	}
	ts.mu.RLock()
	had := map[string]*Token{}
	for _, t := range ts.list {
		had[t.Name] = t
	}
	ts.mu.RUnlock()
	var out []*Token
	var errs []error
	for _, l := range lines {
		switch {
		case l.twice:
			if l.err != nil {
				errs = append(errs, fmt.Errorf("%w: neither line gives a token", l.err))
			}
		case l.err == nil:
			out = append(out, l.token)
		case had[l.name] != nil:
			out = append(out, had[l.name])
			errs = append(errs, fmt.Errorf("%w: %s keeps the token it had", l.err, l.name))
		default:
			errs = append(errs, fmt.Errorf("%w: it gives no token", l.err))
		}
	}
	// A kept token that a line now gives another name: neither.
	count := map[[sha256.Size]byte]int{}
	for _, t := range out {
		count[t.hash]++
	}
	out = slices.DeleteFunc(out, func(t *Token) bool {
		if count[t.hash] > 1 {
			errs = append(errs, fmt.Errorf("%s: token %q is another's too: neither gives a token", file, t.Name))
			return true
		}
		return false
	})
	ts.Set(out)
	return out, errors.Join(errs...)
}

// untilRevoked is r's context, ended also when a Set revokes r's token,
// or takes role from it: a stream of a revoked token ends. Call cancel
// when r is served.
func (ts *Tokens) untilRevoked(r *http.Request, role Role) (ctx context.Context, cancel context.CancelFunc) {
	ctx, cancel = context.WithCancel(r.Context())
	if !ts.required() {
		return ctx, cancel
	}
	got := bearer(r.Header.Get("Authorization"))
	go func() {
		for {
			ts.mu.RLock()
			changed := ts.changed
			ts.mu.RUnlock()
			if t := ts.lookup(got); t == nil || !t.Allows(role) {
				cancel()
				return
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ctx, cancel
}

// tokenKey is the context key of a request's token.
const tokenKey ctxKey = requestIDKey + 1

// RequireToken serves h only to requests with a token of ts that has
// role; the others get 401, or 403 when their token lacks the role. A set
// that never had a token requires nothing. A request's context ends when
// a Set revokes its token (an open stream ends).
func RequireToken(ts *Tokens, role Role, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := authorize(ts, role, w, r); ok {
			ctx, cancel := ts.untilRevoked(r, role)
			defer cancel()
			h.ServeHTTP(w, r.WithContext(ctx))
		}
	})
}

// authorize checks a request's token for role, and answers 401 or 403
// when it does not pass. It returns the token, nil when ts has none.
func authorize(ts *Tokens, role Role, w http.ResponseWriter, r *http.Request) (*Token, bool) {
	if !ts.required() {
		return nil, true
	}
	t := ts.find(r)
	switch {
	case t == nil:
		writeError(w, http.StatusUnauthorized, "unauthorized", "This server needs Authorization: Bearer TOKEN.", nil, nil)
		return nil, false
	case !t.Allows(role):
		writeError(w, http.StatusForbidden, "forbidden", fmt.Sprintf("Token %s may not %s: it has roles %s.", t.Name, roleVerb[role], roleList(t)), nil, nil)
		return nil, false
	}
	return t, true
}

// tokenOf is the token a request was authorized by (nil without tokens).
func tokenOf(r *http.Request) *Token {
	t, _ := r.Context().Value(tokenKey).(*Token)
	return t
}

// named reports whether the set's tokens have names of their own.
func (ts *Tokens) isNamed() bool { return ts != nil && ts.named }

// roleVerb says what a role allows.
var roleVerb = map[Role]string{RoleRead: "read (role read)", RoleRun: "start or cancel runs (role run)", RoleApprove: "decide approvals (role approve)",
	RoleAuthor: "accept or reject proposals (role author)"}

func roleList(t *Token) string {
	var s []string
	for _, r := range t.Roles {
		s = append(s, string(r))
	}
	return strings.Join(s, ", ")
}
