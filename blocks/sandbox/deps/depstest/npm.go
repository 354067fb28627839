package depstest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// NPMPackage is one version of a package a test's registry serves: its
// files (package.json is written from Name, Version and Dependencies
// unless given).
type NPMPackage struct {
	Name, Version string
	Dependencies  map[string]string
	Files         map[string]string
}

// Registry is an npm registry-compatible server a test starts on the
// loopback address: each package's document (packument, with every
// version's dependencies, tarball URL and sha512 integrity) and its
// tarballs.
type Registry struct {
	URL      string
	mu       sync.Mutex
	tarballs map[string][]byte // by the tarball's URL path
	docs     map[string]map[string]any
	Fetched  []string // the paths asked for, in order
}

// NPMRegistry starts a registry serving the packages given, and points
// npm_config_registry at it.
func NPMRegistry(t testing.TB, pkgs ...NPMPackage) *Registry {
	t.Helper()
	r := &Registry{tarballs: map[string][]byte{}, docs: map[string]map[string]any{}}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	for _, p := range pkgs {
		r.Publish(t, p)
	}
	t.Setenv("npm_config_registry", r.URL)
	return r
}

// Publish adds a package's version (or replaces it: a tarball changed
// after it was locked).
func (r *Registry) Publish(t testing.TB, p NPMPackage) {
	t.Helper()
	tgz := Tarball(t, p)
	sum := sha512.Sum512(tgz)
	base := p.Name
	if i := strings.LastIndex(base, "/"); i >= 0 {
		base = base[i+1:]
	}
	tpath := "/" + p.Name + "/-/" + base + "-" + p.Version + ".tgz"
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tarballs[tpath] = tgz
	doc := r.docs[p.Name]
	if doc == nil {
		doc = map[string]any{"name": p.Name, "versions": map[string]any{}}
		r.docs[p.Name] = doc
	}
	doc["versions"].(map[string]any)[p.Version] = map[string]any{
		"name": p.Name, "version": p.Version, "dependencies": p.Dependencies,
		"dist": map[string]any{"tarball": r.URL + tpath, "integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum[:])},
	}
}

// Tamper replaces the tarball of a version with another content, keeping
// the document's integrity: what a compromised registry or mirror serves.
func (r *Registry) Tamper(t testing.TB, p NPMPackage) {
	t.Helper()
	tgz := Tarball(t, p)
	r.mu.Lock()
	defer r.mu.Unlock()
	for path := range r.tarballs {
		if strings.HasSuffix(path, "-"+p.Version+".tgz") && strings.HasPrefix(path, "/"+p.Name+"/-/") {
			r.tarballs[path] = tgz
			return
		}
	}
	t.Fatalf("no tarball of %s@%s to tamper with", p.Name, p.Version)
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Fetched = append(r.Fetched, req.URL.Path)
	if b, ok := r.tarballs[req.URL.Path]; ok {
		w.Write(b)
		return
	}
	name, err := url.PathUnescape(strings.TrimPrefix(req.URL.EscapedPath(), "/"))
	if doc, ok := r.docs[name]; ok && err == nil {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
		return
	}
	http.NotFound(w, req)
}

// Tarball is the .tgz npm pack would make of a package: its files under
// package/.
func Tarball(t testing.TB, p NPMPackage) []byte {
	t.Helper()
	files := map[string]string{}
	for k, v := range p.Files {
		files[k] = v
	}
	if _, ok := files["package.json"]; !ok {
		b, _ := json.Marshal(map[string]any{"name": p.Name, "version": p.Version, "main": "index.js", "dependencies": p.Dependencies})
		files["package.json"] = string(b)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	names := make([]string, 0, len(files))
	for k := range files {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		body := files[name]
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return buf.Bytes()
}
