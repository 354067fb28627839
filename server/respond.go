package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/flowctl/flowctl/lang/diagjson"
	"github.com/hashicorp/hcl/v2"
)

// apiError is the body of every error reply.
type apiError struct {
	Error struct {
		Code        string                `json:"code"`
		Message     string                `json:"message"`
		Diagnostics []diagjson.Diagnostic `json:"diagnostics,omitempty"`
		// RequestID, of an error of the server's own, finds its cause in
		// the server's log.
		RequestID string `json:"request_id,omitempty"`
	} `json:"error"`
}

func writeError(w http.ResponseWriter, status int, code, msg string, files map[string]*hcl.File, diags hcl.Diagnostics) {
	var e apiError
	e.Error.Code, e.Error.Message = code, msg
	if len(diags) > 0 {
		e.Error.Diagnostics = diagjson.New(files, diags).Diagnostics
	}
	writeJSON(w, status, e)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// decodeBody reads a JSON body into v: at most maxBody bytes, no unknown
// fields. An empty body leaves v as it is.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("The body is over %d bytes.", maxBody), nil, nil)
			return false
		}
		writeError(w, http.StatusBadRequest, "bad_request", "The body is not the JSON expected: "+err.Error()+".", nil, nil)
		return false
	}
	return true
}
