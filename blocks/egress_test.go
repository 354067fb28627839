package blocks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"
)

func TestParseEgress(t *testing.T) {
	e, err := ParseEgress("api.example.com, *.internal.example 10.0.0.0/8,192.168.1.5 ::1")
	if err != nil {
		t.Fatal(err)
	}
	if len(e.hosts) != 2 || len(e.nets) != 3 {
		t.Errorf("hosts %v, nets %v", e.hosts, e.nets)
	}
	for _, bad := range []string{"http://example.com", "example.com/path", "*", "user@host", "a:b:c:zz"} {
		if _, err := ParseEgress(bad); err == nil {
			t.Errorf("ParseEgress(%q) succeeded", bad)
		}
	}
}

func TestEgressCheckURL(t *testing.T) {
	e, _ := ParseEgress("api.example.com,*.example.org,10.0.0.0/8,169.254.169.254")
	for _, c := range []struct {
		policy *Egress
		url    string
		want   string // "" for allowed, else part of the error
	}{
		{nil, "http://example.com/", ""},
		{nil, "http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"},
		{nil, "http://[fe80::1]/", "fe80::1 is a link-local address"},
		{nil, "http://[fd00:ec2::254]/", "is a link-local address"},
		{nil, "http://127.0.0.1:8080/", ""},
		{e, "https://api.example.com/v1", ""},
		{e, "https://API.Example.COM./v1", ""},
		{e, "https://a.b.example.org/", ""},
		{e, "https://example.org/", ""}, // a name: left to the dial, as the list has networks
		{e, "http://10.1.2.3/", ""},
		{e, "http://11.1.2.3/", "11.1.2.3 is not in the HTTP allow list (the HTTP allow list is: api.example.com, *.example.org, 10.0.0.0/8, 169.254.169.254)"},
		{e, "http://169.254.169.254/", ""}, // named by address
		{e, "http://169.254.1.1/", "169.254.1.1 is a link-local address"},
	} {
		u, _ := url.Parse(c.url)
		err := c.policy.CheckURL(u)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.url, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.url, err, c.want)
		}
	}
	hostsOnly, _ := ParseEgress("api.example.com")
	if err := hostsOnly.CheckURL(&url.URL{Host: "other.example.com"}); err == nil || !strings.Contains(err.Error(), "other.example.com is not in the HTTP allow list") {
		t.Errorf("a name outside a list of names: %v", err)
	}
}

// TestEgressRequests runs http steps against a local server under several
// allow lists: the check applies to the request, to redirects and to the
// addresses a name resolves to.
func TestEgressRequests(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/to-metadata" {
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
			return
		}
		w.Write([]byte("hello"))
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	for _, c := range []struct {
		allow, url, want string
	}{
		{"", srv.URL, ""},
		{"127.0.0.0/8", srv.URL, ""},
		{"localhost", "http://localhost" + port, ""},
		{"example.com", srv.URL, "127.0.0.1 is not in the HTTP allow list"},
		{"10.0.0.0/8", "http://localhost" + port, "127.0.0.1 is not in the HTTP allow list"}, // refused when dialling
		{"", srv.URL + "/to-metadata", "169.254.169.254 is a link-local address"},
		{"127.0.0.0/8", srv.URL + "/to-metadata", "169.254.169.254 is a link-local address"},
	} {
		var e *Egress
		if c.allow != "" {
			e, _ = ParseEgress(c.allow)
		}
		ex := BuiltinExecutorsWith(HTTPOptions{Egress: e})["http"]
		res, err := ex.Execute(context.Background(), builtinCall(t, "http", map[string]cty.Value{"url": cty.StringVal(c.url)}))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("allow %q, %s: %v", c.allow, c.url, err)
		case c.want == "" && res.Outputs["text"].AsString() != "hello":
			t.Errorf("allow %q, %s: %v", c.allow, c.url, res.Outputs)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("allow %q, %s: %v, want %q", c.allow, c.url, err, c.want)
		}
	}
}

// TestHTTPDefaultTimeout: a request of a step without a timeout of its
// own ends at the options' timeout.
func TestHTTPDefaultTimeout(t *testing.T) {
	done := make(chan struct{})
	defer close(done)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		select { // one byte, then nothing until the client gives up
		case <-r.Context().Done():
		case <-done:
		}
	}))
	defer srv.Close()
	for _, name := range []string{"http", "scrape"} {
		ex := BuiltinExecutorsWith(HTTPOptions{Timeout: 200 * time.Millisecond})[name]
		_, err := ex.Execute(context.Background(), builtinCall(t, name, map[string]cty.Value{"url": cty.StringVal(srv.URL)}))
		if err == nil || !strings.Contains(err.Error(), "the request timed out after") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if DefaultHTTPTimeout != time.Minute || (HTTPOptions{}).timeout() != time.Minute {
		t.Errorf("the default timeout is %s", (HTTPOptions{}).timeout())
	}
}

// TestConnsPerHost: a fan-out of requests to one host opens at most
// ConnsPerHost connections to it; every request is answered.
func TestConnsPerHost(t *testing.T) {
	for _, c := range []struct{ set, want int }{{0, DefaultConnsPerHost}, {3, 3}} {
		var mu sync.Mutex
		open, most := 0, 0
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(5 * time.Millisecond)
			w.Write([]byte("ok"))
		}))
		srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
			mu.Lock()
			defer mu.Unlock()
			switch st {
			case http.StateNew:
				open++
				most = max(most, open)
			case http.StateClosed, http.StateHijacked:
				open--
			}
		}
		srv.Start()
		ex := BuiltinExecutorsWith(HTTPOptions{ConnsPerHost: c.set})["http"]
		var wg sync.WaitGroup
		errs := make(chan error, 60)
		for i := 0; i < 60; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := ex.Execute(context.Background(), builtinCall(t, "http", map[string]cty.Value{"url": cty.StringVal(srv.URL)}))
				if err == nil && res.Outputs["body"].AsString() != "ok" {
					err = fmt.Errorf("body %v", res.Outputs["body"])
				}
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("ConnsPerHost %d: %v", c.set, err)
			}
		}
		srv.Close()
		if most > c.want || most < 1 {
			t.Errorf("ConnsPerHost %d: %d connections were open at once, want at most %d", c.set, most, c.want)
		}
	}
}

// TestLimit: a limited executor runs at most n calls at once, and a
// call's timeout starts when it runs, not while it waits.
func TestLimit(t *testing.T) {
	var mu sync.Mutex
	running, most := 0, 0
	inner := ExecutorFunc(func(ctx context.Context, call *Call) (*Result, error) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		select {
		case <-time.After(20 * time.Millisecond):
			return &Result{}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	ex := Limit(inner, 2)
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// 12 calls of 20ms in 2 places take 120ms or more; each
			// has 10s of its own.
			_, err := ex.Execute(context.Background(), &Call{Timeout: 10 * time.Second})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if most != 2 {
		t.Errorf("%d calls ran at once, want 2", most)
	}

	// A call that outlives its timeout is stopped with an error that
	// says so and wraps context.DeadlineExceeded.
	slow := Limit(ExecutorFunc(func(ctx context.Context, call *Call) (*Result, error) {
		<-ctx.Done()
		return nil, fmt.Errorf("interrupted")
	}), 1)
	_, err := slow.Execute(context.Background(), &Call{Block: &Block{Name: "b"}, Timeout: 10 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `block "b" exceeded its timeout`) {
		t.Errorf("timeout: %v", err)
	}
	// A call cancelled while it waits for a place returns at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ex.Execute(ctx, &Call{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestAllowOnly: an allow list made with AllowOnly and no entry allows no
// host, where an empty ParseEgress list allows every one; Names tells
// what a list names.
func TestAllowOnly(t *testing.T) {
	none, err := AllowOnly(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"http://127.0.0.1:8080/x", "https://example.com/"} {
		u, _ := url.Parse(raw)
		if err := none.CheckURL(u); err == nil || !strings.Contains(err.Error(), "the HTTP allow list allows no host") {
			t.Errorf("%s: %v", raw, err)
		}
	}
	if none.AllowsAll() {
		t.Error("AllowOnly(nil) allows every host")
	}
	if open, _ := ParseEgress(""); !open.AllowsAll() || open.Names("example.com") {
		t.Error("an empty list allows some hosts only")
	}
	some, err := AllowOnly([]string{"api.example.com", "10.0.0.0/8", "*.example.net"})
	if err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]bool{"api.example.com": true, "API.example.com.": true, "example.com": false, "10.1.2.3": true,
		"11.0.0.1": false, "a.example.net": true, "example.net": false} {
		if some.Names(host) != want {
			t.Errorf("Names(%s) = %v", host, !want)
		}
	}
	u, _ := url.Parse("https://api.example.com/")
	if err := some.CheckURL(u); err != nil {
		t.Error(err)
	}
}

// TestQueuedRequestAsksGate: a request that waited for a connection to
// its host (all ConnsPerHost busy) asks its call's gate once it has one,
// and is not sent when the gate says no; the others go as before.
func TestQueuedRequestAsksGate(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		if r.URL.Path == "/first" {
			<-release
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	client := NewHTTPClient(HTTPOptions{ConnsPerHost: 1})
	get := func(ctx context.Context, path string) error {
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+path, nil)
		resp, err := client.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return err
	}
	first := make(chan error, 1)
	go func() { first <- get(context.Background(), "/first") }()
	for {
		mu.Lock()
		n := hits["/first"]
		mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	taken := errors.New("the run was taken over")
	asked := make(chan struct{})
	closed := gated(func(context.Context) error { close(asked); return taken })
	queued := make(chan error, 1)
	go func() { queued <- get(closed, "/queued") }()
	select {
	case <-asked:
		t.Fatal("the gate was asked before the request had a connection")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	err := <-queued
	if !errors.Is(err, taken) || !errors.Is(err, ErrFinal) {
		t.Errorf("the queued request whose gate said no: %v; want the gate's error, final", err)
	}
	if err := get(gated(func(context.Context) error { return nil }), "/after"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if hits["/queued"] != 0 || hits["/after"] != 1 {
		t.Errorf("requests sent: %v; want none of /queued", hits)
	}
}

// gated is a context whose gate is f.
func gated(f func(context.Context) error) context.Context {
	return WithGate(context.Background(), f)
}
