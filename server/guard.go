package server

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// A server without tokens (the default: loopback only) trusts whoever can
// reach it. A browser can be made to reach it by any page: a form or a
// text/plain fetch from another site needs no CORS preflight, and a name
// of the attacker's that resolves to 127.0.0.1 (DNS rebinding) makes the
// server's pages the attacker's origin. So a request without a valid
// token is served only when
//   - its Host is the server's: a loopback name or address, the host of
//     --addr, or one of --allowed-host;
//   - its Origin, when it has one, is the server's own (the Host's);
//   - a write (POST) says Content-Type: application/json (a form cannot,
//     and a fetch that does needs a preflight the server never grants);
//   - a write from a browser (with an Origin) carries the CSRF token of
//     the dashboard's page (X-Flowctl-CSRF), which only a page of the
//     server's own origin can read.
// The probes (/healthz, /readyz) are not guarded: they hold nothing.

// csrfHeader carries the dashboard's CSRF token.
const csrfHeader = "X-Flowctl-CSRF"

// newCSRFToken is a random token, one per server process.
func newCSRFToken() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// hostAllowed reports whether a request's Host (with or without a port)
// is one the server answers to without a token: a loopback name or
// address, or one of allowed.
func hostAllowed(host string, allowed []string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
	if h == "localhost" {
		return true
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, a := range allowed {
		if strings.EqualFold(strings.Trim(a, "[]"), h) {
			return true
		}
	}
	return false
}

// sameOrigin reports whether an Origin header names the host the request
// was sent to.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return strings.EqualFold(u.Host, host)
}

// guard checks a request that carries no token of a server without
// tokens; it answers and returns false when the request is refused.
func (s *Server) guard(w http.ResponseWriter, r *http.Request) bool {
	if !hostAllowed(r.Host, s.opts.AllowedHosts) {
		writeError(w, http.StatusForbidden, "forbidden_host",
			"This server answers requests for its own host names only: give it --allowed-host with this one, or a token.", nil, nil)
		return false
	}
	origin := r.Header.Get("Origin")
	if origin != "" && !sameOrigin(origin, r.Host) {
		writeError(w, http.StatusForbidden, "forbidden_origin", "Requests from pages of other sites are refused.", nil, nil)
		return false
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "A request that changes something has a JSON body: Content-Type: application/json.", nil, nil)
		return false
	}
	if origin != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get(csrfHeader)), []byte(s.csrf)) != 1 {
		writeError(w, http.StatusForbidden, "csrf", "A request from a browser page needs the CSRF token of the dashboard's page ("+csrfHeader+").", nil, nil)
		return false
	}
	return true
}
