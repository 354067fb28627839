package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
)

// go-openai's request omits a numeric parameter that is zero (its fields
// are `omitempty` floats), and a server takes an omitted parameter as its
// own default: a temperature of 0 would be sampled at 1. A request whose
// parameters are zero carries their names in its context, and
// zeroTransport writes them into the body as 0 on the way out, so that
// the server gets exactly what the step says.

type zeroParamsKey struct{}

// withZeroParams returns ctx carrying the names of the request's numeric
// parameters that are set to zero.
func withZeroParams(ctx context.Context, names []string) context.Context {
	if len(names) == 0 {
		return ctx
	}
	return context.WithValue(ctx, zeroParamsKey{}, names)
}

// zeroTransport puts the zero parameters named in a request's context
// into its JSON body.
type zeroTransport struct{ base http.RoundTripper }

func (z zeroTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	names, _ := req.Context().Value(zeroParamsKey{}).([]string)
	if len(names) == 0 || req.Body == nil {
		return z.send(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) == nil {
		for _, n := range names {
			if _, has := fields[n]; !has {
				fields[n] = json.RawMessage("0")
			}
		}
		if b, err := json.Marshal(fields); err == nil {
			body = b
		}
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return z.send(out)
}

// send sends req, and reads a streamed response as streamResponse says.
func (z zeroTransport) send(req *http.Request) (*http.Response, error) {
	resp, err := z.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	return streamResponse(req, resp), nil
}

// wrapZero returns client with its transport wrapped by zeroTransport.
func wrapZero(client *http.Client) *http.Client {
	c := *client
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = zeroTransport{base: base}
	return &c
}
