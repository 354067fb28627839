package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestBearerScheme: the scheme of Authorization is case-insensitive (RFC
// 7235); another scheme, or none, is no token.
func TestBearerScheme(t *testing.T) {
	const secret = "a-token-of-32-characters-0123456"
	h := RequireToken(NewTokens(SingleToken(secret), false), RoleRead, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for header, want := range map[string]int{
		"Bearer " + secret:  200,
		"bearer " + secret:  200,
		"BEARER " + secret:  200,
		"Bearer  " + secret: 200,
		"Basic " + secret:   401,
		"Bearer" + secret:   401,
		secret:              401,
		"bearer ":           401,
	} {
		r := httptest.NewRequest("GET", "/v1/runs", nil)
		r.Header.Set("Authorization", header)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("%q: %d, want %d", header, w.Code, want)
		}
	}
}

// TestTokensCompareDigests: a token is kept as its SHA-256 only, a plain
// one as a sha256: one, so that what is compared is a digest of a fixed
// length.
func TestTokensCompareDigests(t *testing.T) {
	list, err := ParseTokens("tokens", []byte("ci run ci-token-00000001\nana read sha256:"+strings.Repeat("ab", 32)+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !list[0].matches("ci-token-00000001") || list[0].matches("ci-token-0000000") || list[0].matches("ci-token-000000011") {
		t.Errorf("ci's token: %+v", list[0])
	}
	if single := SingleToken("ci-token-00000001"); !single[0].matches("ci-token-00000001") || single[0].hash != list[0].hash {
		t.Errorf("the single token: %+v", single[0])
	}
}

// TestRevokedSetRefuses: a set that had tokens and has none left refuses
// every request (401); it does not become a server without tokens.
func TestRevokedSetRefuses(t *testing.T) {
	tokens := NewTokens(SingleToken("a-token-of-32-characters-0123456"), false)
	tokens.Set(nil)
	ts := newTestServer(t, files{"review.flow.hcl": reviewFlow}, func(o *Options) { o.Tokens = tokens })
	for _, token := range []string{"", "a-token-of-32-characters-0123456"} {
		ts.token = token
		if code := ts.code("GET", "/v1/runs", "", nil); code != 401 {
			t.Errorf("token %q after the revocation of every token: %d", token, code)
		}
	}
	if open := NewTokens(nil, false); open.required() {
		t.Error("a set that never had a token requires one")
	}
}

// TestTokensReread: a tokens file read again fails closed. A line that
// reads gives its token; one that does not keeps the token its name had
// (with the roles it had), or gives none; two lines with a name or a
// token give none; names no line gives are revoked; an empty file revokes
// all.
func TestTokensReread(t *testing.T) {
	const before = "ana read,approve ana-token-000001\nci read,run ci-token-0000001\neve read eve-token-000001\nbob read bob-token-000001\n"
	for _, c := range []struct {
		name, file string
		accepted   []string // name:token, of the tokens the set has after
		errs       []string
	}{
		{"good", "ana read ana-token-000002\nci read,run ci-token-0000001\n",
			[]string{"ana:ana-token-000002:read", "ci:ci-token-0000001:read,run"}, nil},
		{"typo", "ana read,aprove ana-token-000002\nci read,run ci-token-0000002\ndan read dan\n",
			[]string{"ana:ana-token-000001:read,approve", "ci:ci-token-0000002:read,run"},
			[]string{`tokens:1: unknown role "aprove"`, "ana keeps the token it had", "tokens:3: token \"dan\": a token has at least 16", "it gives no token"}},
		{"fields", "ana ana-token-000002\nci read,run ci-token-0000002\n",
			[]string{"ana:ana-token-000001:read,approve", "ci:ci-token-0000002:read,run"},
			[]string{"tokens:1: a line is NAME ROLES TOKEN, not 2 fields", "ana keeps"}},
		{"a name twice", "ana read ana-token-000002\nana read ana-token-000003\nci read ci-token-0000002\n",
			[]string{"ci:ci-token-0000002:read"}, []string{`tokens:2: a second token named "ana": neither line gives a token`}},
		{"a token twice", "ana read ci-token-0000002\nci read ci-token-0000002\n",
			nil, []string{`tokens:2: token "ci" is the same as an earlier one: neither line gives a token`}},
		{"a kept token given to another", "ana read,admin ana-token-000002\nbob read ana-token-000001\n",
			nil, []string{"ana keeps the token it had", `token "ana" is another's too: neither gives a token`}},
		{"empty", "", nil, nil},
		{"comments only", "# none\n\n", nil, nil},
		{"a line too long", "ana read " + strings.Repeat("x", 70000) + "\n", nil, []string{"token too long: every token is refused"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			list, err := ParseTokens("tokens", []byte(before))
			if err != nil {
				t.Fatal(err)
			}
			tokens := NewTokens(list, true)
			got, err := tokens.Reread("tokens", []byte(c.file))
			for _, want := range c.errs {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("the error %v does not say %q", err, want)
				}
			}
			if len(c.errs) == 0 && err != nil {
				t.Errorf("error %v", err)
			}
			var accepted []string
			for _, tok := range got {
				roles := make([]string, len(tok.Roles))
				for i, r := range tok.Roles {
					roles[i] = string(r)
				}
				// Which of the tokens named in the case it is.
				secret := ""
				for _, s := range []string{"ana-token-000001", "ana-token-000002", "ci-token-0000001", "ci-token-0000002"} {
					if tok.matches(s) {
						secret = s
					}
				}
				accepted = append(accepted, tok.Name+":"+secret+":"+strings.Join(roles, ","))
			}
			if !slices.Equal(accepted, c.accepted) {
				t.Errorf("the tokens %q, want %q", accepted, c.accepted)
			}
			if tokens.Len() != len(c.accepted) || !tokens.required() {
				t.Errorf("the set has %d tokens, required %v", tokens.Len(), tokens.required())
			}
		})
	}
}

// TestRevokedRequestEnds: a request of RequireToken (flowctl mcp --http)
// whose token a rotation revokes has its context ended, so that a stream
// it serves ends; the other tokens' requests go on.
func TestRevokedRequestEnds(t *testing.T) {
	const keep, revoke = "keep-token-000000001", "revoke-token-0000001"
	list, err := ParseTokens("tokens", []byte("a run "+keep+"\nb run "+revoke+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	tokens := NewTokens(list, true)
	opened := make(chan struct{}, 2)
	hs := httptest.NewServer(RequireToken(tokens, RoleRun, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("open\n"))
		w.(http.Flusher).Flush()
		opened <- struct{}{}
		<-r.Context().Done()
	})))
	defer hs.Close()
	stream := func(token string) (io.ReadCloser, <-chan error) {
		req, _ := http.NewRequest("GET", hs.URL, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		<-opened
		ended := make(chan error, 1)
		go func() { _, err := io.ReadAll(resp.Body); ended <- err }()
		return resp.Body, ended
	}
	keptBody, keptEnded := stream(keep)
	defer keptBody.Close()
	_, revokedEnded := stream(revoke)
	if _, err := tokens.Reread("tokens", []byte("a run "+keep+"\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-revokedEnded:
	case <-time.After(time.Minute): // a bound for a failure, not a measure
		t.Fatal("the stream of a revoked token is still open after a minute")
	}
	select {
	case err := <-keptEnded:
		t.Errorf("the stream of a kept token ended: %v", err)
	default:
	}
}
