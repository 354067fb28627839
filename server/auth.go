package server

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// RequireToken serves h only to requests with Authorization: Bearer
// token, compared in constant time; the others get 401 with a JSON error.
// An empty token requires nothing.
func RequireToken(token string, h http.Handler) http.Handler {
	if token == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			writeError(w, http.StatusUnauthorized, "unauthorized", "This server needs Authorization: Bearer TOKEN.", nil, nil)
			return
		}
		h.ServeHTTP(w, r)
	})
}
