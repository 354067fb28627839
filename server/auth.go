package server

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
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
	// secret is the token, or hash its SHA-256 when the file gave
	// sha256:HEX.
	secret, hash []byte
}

// matches reports, in constant time, whether got is the token.
func (t *Token) matches(got string) bool {
	if t.hash != nil {
		sum := sha256.Sum256([]byte(got))
		return subtle.ConstantTimeCompare(sum[:], t.hash) == 1
	}
	return subtle.ConstantTimeCompare([]byte(got), t.secret) == 1
}

// Allows reports whether the token has a role.
func (t *Token) Allows(r Role) bool { return slices.Contains(t.Roles, r) }

// Tokens are the tokens a server accepts; Set replaces them while it
// serves (a rotation). An empty set requires no token. Its methods are
// safe for concurrent use.
type Tokens struct {
	mu   sync.RWMutex
	list []*Token
	// named: the tokens have names of their own (a tokens file), which
	// approvals record as who decided.
	named bool
}

// SingleToken is one token with every role (FLOWCTL_TOKEN,
// --token-file); "" is no token.
func SingleToken(secret string) []*Token {
	if secret == "" {
		return nil
	}
	return []*Token{{Name: "token", Roles: allRoles, secret: []byte(secret)}}
}

// NewTokens is a set of tokens; named says whether their names say who
// they are (ParseTokens's are).
func NewTokens(list []*Token, named bool) *Tokens {
	return &Tokens{list: list, named: named}
}

// Set replaces the tokens.
func (ts *Tokens) Set(list []*Token) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.list = list
}

// required reports whether the set has tokens, which requests then need.
func (ts *Tokens) required() bool {
	if ts == nil {
		return false
	}
	ts.mu.RLock()
	defer ts.mu.RUnlock()
	return len(ts.list) > 0
}

// find is the token a request carries, nil when it carries none of the
// set's. Every token is compared, so that the time taken tells nothing.
func (ts *Tokens) find(r *http.Request) *Token {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || ts == nil {
		return nil
	}
	ts.mu.RLock()
	defer ts.mu.RUnlock()
	var found *Token
	for _, t := range ts.list {
		if t.matches(got) && found == nil {
			found = t
		}
	}
	return found
}

// ParseTokens reads a tokens file: a line a token, `NAME ROLES TOKEN`,
// ROLES comma-separated (read, run, approve, author), TOKEN the token or
// sha256:HEX, the hex SHA-256 of it; blank lines and lines starting with #
// are skipped. Names are unique, and so are tokens.
func ParseTokens(file string, b []byte) ([]*Token, error) {
	var out []*Token
	sc := bufio.NewScanner(bytes.NewReader(b))
	names, secrets := map[string]bool{}, map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: a line is NAME ROLES TOKEN, not %d fields", file, n, len(f))
		}
		t := &Token{Name: f[0]}
		if names[t.Name] {
			return nil, fmt.Errorf("%s:%d: a second token named %q", file, n, t.Name)
		}
		for _, r := range strings.Split(f[1], ",") {
			if !slices.Contains(allRoles, Role(r)) {
				return nil, fmt.Errorf("%s:%d: unknown role %q (the roles are read, run, approve and author)", file, n, r)
			}
			if !t.Allows(Role(r)) {
				t.Roles = append(t.Roles, Role(r))
			}
		}
		if hexSum, ok := strings.CutPrefix(f[2], "sha256:"); ok {
			sum, err := hex.DecodeString(hexSum)
			if err != nil || len(sum) != sha256.Size {
				return nil, fmt.Errorf("%s:%d: sha256: is followed by the 64 hex digits of a SHA-256", file, n)
			}
			t.hash = sum
		} else {
			t.secret = []byte(f[2])
		}
		if secrets[f[2]] {
			return nil, fmt.Errorf("%s:%d: token %q is the same as an earlier one", file, n, t.Name)
		}
		names[t.Name], secrets[f[2]] = true, true
		out = append(out, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no token", file)
	}
	return out, nil
}

// tokenKey is the context key of a request's token.
const tokenKey ctxKey = requestIDKey + 1

// RequireToken serves h only to requests with a token of ts that has
// role; the others get 401, or 403 when their token lacks the role. An
// empty set requires nothing.
func RequireToken(ts *Tokens, role Role, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := authorize(ts, role, w, r); ok {
			h.ServeHTTP(w, r)
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
