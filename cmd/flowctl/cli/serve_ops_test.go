package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeTokensFile: named tokens with roles from --tokens-file; the
// file is read again when it changes (a token rotates without a restart)
// and on SIGHUP, and a line that does not read keeps the token its name
// had (the other names, gone from the file, are revoked). The log is JSON (--log-format json), a line a request, without
// tokens.
func TestServeTokensFile(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := serveDir(t)
	file := filepath.Join(t.TempDir(), "tokens")
	writeFile(t, file, "# name roles token\nana read,approve t-ana-1-0123456789\nci read,run t-ci-1-0123456789\n")
	p := startServe(t, dir, nil, "--tokens-file", file, "--log-format", "json")
	p.token = "t-ana-1-0123456789"
	if code := p.do("GET", "/v1/runs", "", nil); code != 200 {
		t.Fatalf("ana reads: %d", code)
	}
	if code := p.do("POST", "/v1/flows/greet/runs", `{"inputs": {"name": "x"}}`, nil); code != 403 {
		t.Errorf("ana starts a run: %d", code)
	}
	// A rotation: an atomic replacement, as a secret manager does it.
	tmp := file + ".new"
	writeFile(t, tmp, "ana read,approve t-ana-2-0123456789\nci read,run t-ci-1-0123456789\n")
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
	until := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not after a minute\n%s", what, p.stderr)
			}
		}
	}
	until("the rotated token", func() bool { p.token = "t-ana-2-0123456789"; return p.do("GET", "/v1/runs", "", nil) == 200 })
	p.token = "t-ana-1-0123456789"
	if code := p.do("GET", "/v1/runs", "", nil); code != 401 {
		t.Errorf("the old token after the rotation: %d", code)
	}
	// A broken line keeps its name's token; ci, gone from the file, is
	// revoked. SIGHUP reads the file again once fixed.
	writeFile(t, file, "ana admin t-ana-3-0123456789\n")
	until("the broken file's error", func() bool { return strings.Contains(p.stderr.String(), "the token file does not read") })
	p.token = "t-ana-2-0123456789"
	if code := p.do("GET", "/v1/runs", "", nil); code != 200 {
		t.Errorf("after a broken file: %d", code)
	}
	p.token = "t-ci-1-0123456789"
	if code := p.do("GET", "/v1/runs", "", nil); code != 401 {
		t.Errorf("ci, gone from the broken file: %d", code)
	}
	writeFile(t, file, "ana read t-ana-3-0123456789\n")
	p.cmd.Process.Signal(syscall.SIGHUP)
	until("SIGHUP", func() bool { return strings.Contains(p.stderr.String(), `"why":"SIGHUP"`) })
	until("the token read on SIGHUP", func() bool { p.token = "t-ana-3-0123456789"; return p.do("GET", "/v1/runs", "", nil) == 200 })

	// A request's line is written after its response: wait for the last.
	logged := func() (requests int) {
		out := p.stderr.String()
		out = out[:strings.LastIndex(out, "\n")+1] // whole lines only
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("a log line that is not JSON: %q", line)
			}
			if strings.Contains(line, "t-ana") || strings.Contains(line, "t-ci") {
				t.Fatalf("a token in the log: %s", line)
			}
			if rec["msg"] == "request" && rec["path"] == "/v1/runs" && rec["status"] != nil && rec["duration_ms"] != nil {
				requests++
			}
		}
		return requests
	}
	until("five requests logged", func() bool { return logged() >= 5 })
}

// TestServeTLS: --tls-cert and --tls-key serve HTTPS, a pair that does not
// load is a usage error, and a certificate without its key too.
func TestServeTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := serveDir(t)
	certFile, keyFile, pool := selfSigned(t)
	p := startServe(t, dir, nil, "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(p.url, "https://") {
		t.Fatalf("serve says %s", p.url)
	}
	p.client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if code := p.do("GET", "/v1/flows", "", nil); code != 200 {
		t.Errorf("over HTTPS: %d", code)
	}
	for _, args := range [][]string{{"--tls-cert", certFile}, {"--tls-cert", keyFile, "--tls-key", certFile}} {
		cmd := flowctl(t, dir, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err == nil || cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "--tls-") {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// their files and a pool that trusts the certificate.
func selfSigned(t *testing.T) (string, string, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "flowctl test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeFile(t, certFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	writeFile(t, keyFile, string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})))
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
