package blocks

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultHTTPTimeout bounds a request of an http or scrape step whose step
// sets no timeout: a server that sends a byte a second must not hold a run
// forever.
const DefaultHTTPTimeout = 60 * time.Second

// DefaultConnsPerHost bounds the connections the http and scrape blocks
// have open to one host (scheme, host and port) at once; further requests
// wait for one of them. A fan-out of thousands of requests then neither
// exhausts the machine's sockets nor floods the server.
const DefaultConnsPerHost = 8

// HTTPOptions configure the http and scrape blocks.
type HTTPOptions struct {
	// Timeout bounds each request of a step that sets no timeout of its
	// own; DefaultHTTPTimeout when zero.
	Timeout time.Duration
	// Egress says where the blocks may connect; nil means anywhere but
	// link-local addresses.
	Egress *Egress
	// ConnsPerHost bounds the open connections to one host;
	// DefaultConnsPerHost when zero.
	ConnsPerHost int
}

func (o HTTPOptions) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultHTTPTimeout
}

// metadataNets are the addresses of cloud metadata services, which hand
// out credentials to whatever asks from inside the machine: IPv4 and IPv6
// link-local, and AWS's IPv6 endpoint. They are refused unless an allow
// entry names them by address.
var metadataNets = []netip.Prefix{
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("fe80::/10"),
	netip.MustParsePrefix("fd00:ec2::254/128"),
}

// Egress is where http and scrape steps may connect: an allow list of host
// patterns ("api.example.com", "*.example.com") and addresses or networks
// ("10.1.2.3", "192.168.0.0/16", "::1"). An empty list allows every host.
// Either way link-local addresses (cloud metadata services) are refused
// unless an address entry covers them. Hosts are checked on every request
// and redirect, and the addresses a name resolves to when connecting, so
// that a name cannot be pointed at a refused address (DNS rebinding).
type Egress struct {
	spec  string // as given, for messages
	hosts []string
	nets  []netip.Prefix
	// only: an empty list allows no host (AllowOnly), rather than every
	// one.
	only bool
}

// AllowOnly is an allow list of exactly the entries given, as ParseEgress
// reads them: with none, no host may be connected to.
func AllowOnly(entries []string) (*Egress, error) {
	e, err := ParseEgress(strings.Join(entries, ","))
	if err != nil {
		return nil, err
	}
	e.only = true
	return e, nil
}

// Names reports whether the list itself names a host: a host pattern it
// matches or, for an address, a network that covers it. A name whose
// addresses fall in a network of the list is not named, though the list
// lets it be connected to. A list that allows every host names none.
func (e *Egress) Names(host string) bool {
	if e.open() {
		return false
	}
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		a = a.Unmap()
		for _, p := range e.nets {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	return e.matchHost(host)
}

// ParseEgress reads an allow list: entries separated by commas or spaces.
func ParseEgress(list string) (*Egress, error) {
	e := &Egress{}
	var entries []string
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		entries = append(entries, f)
		f = strings.ToLower(f)
		if p, err := netip.ParsePrefix(f); err == nil {
			e.nets = append(e.nets, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(strings.Trim(f, "[]")); err == nil {
			e.nets = append(e.nets, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		host := strings.TrimPrefix(f, "*.")
		if host == "" || strings.ContainsAny(host, "/:*@") {
			return nil, fmt.Errorf("%q is not a host name, a host pattern such as *.example.com, an address or a network such as 10.0.0.0/8", f)
		}
		e.hosts = append(e.hosts, f)
	}
	e.spec = strings.Join(entries, ", ")
	return e, nil
}

// AllowsAll reports whether the list allows every host (but link-local
// addresses): none was given.
func (e *Egress) AllowsAll() bool { return e.open() }

// open reports whether the list allows every host.
func (e *Egress) open() bool { return e == nil || !e.only && len(e.hosts)+len(e.nets) == 0 }

// EgressError says why a connection was refused.
type EgressError struct{ msg string }

func (e *EgressError) Error() string { return e.msg }

func (e *Egress) refuse(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	switch {
	case !e.open() && e.spec == "":
		msg += " (the HTTP allow list allows no host)"
	case !e.open():
		msg += " (the HTTP allow list is: " + e.spec + ")"
	}
	return &EgressError{msg}
}

// matchHost reports whether a host name matches a host pattern.
func (e *Egress) matchHost(host string) bool {
	if e == nil {
		return false
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, p := range e.hosts {
		if rest, ok := strings.CutPrefix(p, "*."); ok {
			if strings.HasSuffix(host, "."+rest) {
				return true
			}
		} else if host == p {
			return true
		}
	}
	return false
}

// allowsAddr reports whether an address may be connected to; byName says
// that its host name matched a host pattern.
func (e *Egress) allowsAddr(a netip.Addr, byName bool) error {
	a = a.Unmap()
	explicit := false
	if e != nil {
		for _, p := range e.nets {
			if p.Contains(a) {
				explicit = true
				break
			}
		}
	}
	for _, p := range metadataNets {
		if p.Contains(a) && !explicit {
			return e.refuse("%s is a link-local address, where cloud metadata services answer; allow it by address (--http-allow %s) if it is meant", a, a)
		}
	}
	if e.open() || explicit || byName {
		return nil
	}
	return e.refuse("%s is not in the HTTP allow list", a)
}

// CheckURL checks the host of a request (or a redirect) before it is sent.
// A host name that matches no pattern is left to the dial, when the list
// has networks its addresses may fall in.
func (e *Egress) CheckURL(u *url.URL) error {
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		return e.allowsAddr(a, false)
	}
	if e.open() || e.matchHost(host) || len(e.nets) > 0 {
		return nil
	}
	return e.refuse("%s is not in the HTTP allow list", host)
}

// dialContext resolves the host itself and connects only to addresses the
// list allows, so that what was checked is what is connected to.
func (e *Egress) dialContext(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		byName := e.matchHost(host)
		var addrs []netip.Addr
		if a, err := netip.ParseAddr(host); err == nil {
			addrs = []netip.Addr{a}
		} else {
			ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
			if err != nil {
				return nil, err
			}
			addrs = ips
		}
		var firstErr error
		for _, a := range addrs {
			if err := e.allowsAddr(a, byName); err != nil {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			c, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
			if err == nil {
				return c, nil
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("%s has no address", host)
		}
		return nil, firstErr
	}
}

// NewHTTPClient returns the client of the http and scrape blocks: Go's
// default transport with at most ConnsPerHost connections per host,
// connecting as the egress policy allows, following up
// to 10 redirects, each checked against the policy.
func NewHTTPClient(o HTTPOptions) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = o.Egress.dialContext(&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second})
	t.MaxConnsPerHost = o.ConnsPerHost
	if t.MaxConnsPerHost <= 0 {
		t.MaxConnsPerHost = DefaultConnsPerHost
	}
	t.MaxIdleConnsPerHost = t.MaxConnsPerHost // keep what may be reused
	return &http.Client{
		Transport: &gatedTransport{next: t, per: t.MaxConnsPerHost, hosts: map[string]*hostSlots{}},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return fmt.Errorf("stopped after 10 redirects")
			}
			return o.Egress.CheckURL(req.URL)
		},
	}
}

// A gatedTransport holds each request for one of the per places of its
// host before the transport has it, so that a request that waits for a
// connection (all per of the host's are busy) waits here, where, once it
// has its place, it asks its call whether it may still be sent (Proceed):
// a request queued before the process was stopped, and that it would send
// once it is let go on, is not sent for a run the process no longer owns.
// A host that answers over HTTP/2, many requests on one connection, is
// not held.
type gatedTransport struct {
	next http.RoundTripper
	per  int

	mu    sync.Mutex
	hosts map[string]*hostSlots
}

type hostSlots struct {
	slots       chan struct{}
	multiplexed atomic.Bool
}

func (g *gatedTransport) slots(u *url.URL) *hostSlots {
	key := u.Scheme + "://" + u.Host
	g.mu.Lock()
	defer g.mu.Unlock()
	h := g.hosts[key]
	if h == nil {
		h = &hostSlots{slots: make(chan struct{}, g.per)}
		g.hosts[key] = h
	}
	return h
}

func (g *gatedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	h := g.slots(req.URL)
	held := !h.multiplexed.Load()
	if held {
		select {
		case h.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	release := func() {
		if held {
			<-h.slots
		}
	}
	if err := Proceed(ctx); err != nil {
		release()
		return nil, err
	}
	resp, err := g.next.RoundTrip(req)
	if err != nil {
		release()
		return nil, err
	}
	if resp.ProtoMajor >= 2 {
		h.multiplexed.Store(true)
	}
	if held {
		resp.Body = &releasingBody{ReadCloser: resp.Body, release: sync.OnceFunc(release)}
	}
	return resp, nil
}

// CloseIdleConnections closes the transport's idle connections.
func (g *gatedTransport) CloseIdleConnections() {
	if c, ok := g.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// releasingBody gives its request's place back when it is closed.
type releasingBody struct {
	io.ReadCloser
	release func()
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}
