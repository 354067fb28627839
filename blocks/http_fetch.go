package blocks

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// Sending a request and reading its response, for http and scrape.

// StatusError is the error of an http or scrape step whose response has a
// status of 400 or more. Its fields are safe to show: the URL has no user
// information and no query values, and Body has the request's secrets
// removed.
type StatusError struct {
	Method     string
	URL        string
	StatusCode int
	Status     string // "503 Service Unavailable"
	Body       string // the start of the body on one line; may be empty
}

func (e *StatusError) Error() string {
	msg := e.Method + " " + e.URL + ": " + e.Status
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// statusBodyBytes is how much of an error response's body a StatusError
// quotes.
const statusBodyBytes = 200

// fetch sends req and reads the response body, refusing bodies over
// maxBytes and statuses of 400 or more. The returned response's body is
// closed; its headers and Request (the last one, after redirects) remain.
func fetch(client *http.Client, req *http.Request, maxBytes int64, label *reqLabel) (*http.Response, string, error) {
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", label.transportError(req.Context(), err, start)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, statusBodyBytes+utf8.UTFMax))
		status := resp.Status
		if status == "" {
			status = fmt.Sprint(resp.StatusCode)
		}
		return nil, "", &StatusError{
			Method:     label.method,
			URL:        label.url,
			StatusCode: resp.StatusCode,
			Status:     status,
			Body:       label.scrub(snippet(b, statusBodyBytes)),
		}
	}
	if req.Method != http.MethodHead && resp.ContentLength > maxBytes {
		return nil, "", label.errorf(nil, "the response is %d bytes, more than max_bytes (%d)", resp.ContentLength, maxBytes)
	}
	body, err := readBody(resp.Body, resp.ContentLength, maxBytes)
	if err != nil {
		return nil, "", label.transportError(req.Context(), err, start)
	}
	if int64(len(body)) > maxBytes {
		return nil, "", label.errorf(nil, "the response is larger than max_bytes (%d bytes)", maxBytes)
	}
	return resp, body, nil
}

// readBody reads at most limit+1 bytes of r into the string it becomes. A
// body of known length is read into a string of that size; one of unknown
// length into chunks of growing size, joined once at the end. Either way
// a large body costs about its own size, at most twice while it is read.
func readBody(r io.Reader, length, limit int64) (string, error) {
	r = io.LimitReader(r, limit+1)
	var b strings.Builder
	if length > 0 && length <= limit {
		b.Grow(int(length))
		_, err := io.Copy(&b, r)
		return b.String(), err
	}
	var chunks [][]byte
	total, size := 0, 64<<10
	for {
		chunk := make([]byte, size)
		n, err := io.ReadFull(r, chunk)
		if n > 0 {
			chunks = append(chunks, chunk[:n])
			total += n
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return "", err
		}
		size = min(2*size, 8<<20)
	}
	b.Grow(total)
	for _, c := range chunks {
		b.Write(c)
	}
	return b.String(), nil
}

// snippet is the start of b, at most n bytes, as valid UTF-8 on one line.
func snippet(b []byte, n int) string {
	cut := len(b) > n
	if cut {
		b = b[:n]
		// Do not split a rune.
		for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.Valid(b); i++ {
			b = b[:len(b)-1]
		}
	}
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "\uFFFD")), " ")
	if cut && s != "" {
		s += "…"
	}
	return s
}

var utf8BOM = []byte("\xEF\xBB\xBF")

// decodeBody returns a response body as UTF-8 text: decoded from the
// charset the Content-Type (or, for HTML, the page) declares, else taken as
// UTF-8 with invalid sequences replaced by U+FFFD.
func decodeBody(body, contentType string) string {
	mt, params, _ := mime.ParseMediaType(contentType)
	label := params["charset"]
	if label == "" && isHTMLType(mt) && !utf8.ValidString(body) {
		_, label, _ = charset.DetermineEncoding([]byte(body[:min(len(body), 1024)]), contentType)
	}
	if label != "" {
		if enc, name := charset.Lookup(label); enc != nil && name != "utf-8" {
			if out, err := enc.NewDecoder().String(body); err == nil {
				return strings.ToValidUTF8(out, "\uFFFD")
			}
		}
	}
	// Valid UTF-8 comes back as it is, without a copy.
	return strings.ToValidUTF8(strings.TrimPrefix(body, string(utf8BOM)), "\uFFFD")
}

func isHTMLType(mt string) bool { return mt == "text/html" || mt == "application/xhtml+xml" }
