package deps

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/flowctl/flowctl/lang"
)

// DefaultRegistry is the npm registry packages come from when the
// environment names none (npm_config_registry).
const DefaultRegistry = "https://registry.npmjs.org"

// Registry is the npm registry of the environment: npm_config_registry
// (or NPM_CONFIG_REGISTRY), as npm itself reads it, else DefaultRegistry.
func Registry() string {
	for _, k := range []string{"npm_config_registry", "NPM_CONFIG_REGISTRY"} {
		if v := strings.TrimSpace(os.Getenv(k)); v != "" {
			return strings.TrimRight(v, "/")
		}
	}
	return DefaultRegistry
}

// maxPackument and maxTarball bound what is read from a registry.
const (
	maxPackument = 64 << 20
	maxTarball   = 64 << 20
)

// packument is the part of a registry's package document lock reads.
type packument struct {
	Versions map[string]struct {
		Dependencies map[string]string `json:"dependencies"`
		Dist         struct {
			Tarball   string `json:"tarball"`
			Integrity string `json:"integrity"`
		} `json:"dist"`
	} `json:"versions"`
}

// npmResolver resolves ranges against a registry, reading each package's
// document once.
type npmResolver struct {
	registry string
	client   *http.Client
	docs     map[string]*packument
}

func (r *npmResolver) packument(ctx context.Context, name string) (*packument, error) {
	if d, ok := r.docs[name]; ok {
		return d, nil
	}
	u := r.registry + "/" + strings.Replace(url.PathEscape(name), "%40", "@", 1)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8")
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the npm registry %s: %w", r.registry, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the npm registry %s answered %s for package %q", r.registry, resp.Status, name)
	}
	var d packument
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxPackument)).Decode(&d); err != nil {
		return nil, fmt.Errorf("the npm registry's document of %q: %w", name, err)
	}
	r.docs[name] = &d
	return &d, nil
}

// pick is the highest version of a package that satisfies a range.
func (r *npmResolver) pick(ctx context.Context, name, rng string) (string, *packument, error) {
	c, err := semver.NewConstraint(rng)
	if err != nil {
		return "", nil, fmt.Errorf("package %q: %q is not a semver range: %w", name, rng, err)
	}
	d, err := r.packument(ctx, name)
	if err != nil {
		return "", nil, err
	}
	var best *semver.Version
	bestText := ""
	for text := range d.Versions {
		v, err := semver.StrictNewVersion(text)
		if err != nil || !c.Check(v) {
			continue
		}
		if best == nil || v.GreaterThan(best) {
			best, bestText = v, text
		}
	}
	if best == nil {
		return "", nil, fmt.Errorf("the npm registry %s has no version of %q that satisfies %q", r.registry, name, rng)
	}
	return bestText, d, nil
}

// LockJS resolves a js block's packages against the environment's npm
// registry (Registry), with their dependencies, into an entry: every
// package's exact version, tarball and integrity, laid out as npm lays
// out node_modules (a package is hoisted to the top unless another
// version of it is there, and is then nested under the package needing
// it). The tarballs are fetched and checked, installed into the cache,
// and the declared packages bundled once: a package that needs Node's
// built-in modules is refused here, with the chain of imports to it.
func LockJS(ctx context.Context, pkgs map[string]string) (*JSEntry, error) {
	r := &npmResolver{registry: Registry(), client: http.DefaultClient, docs: map[string]*packument{}}
	e := &JSEntry{Key: lang.PackagesKey(pkgs), Packages: pkgs}
	byPath := map[string]*JSPackage{}
	fetched := map[string][]byte{}
	var queue []want
	for _, name := range sortedNames(pkgs) {
		queue = append(queue, want{"", name, name, pkgs[name]})
	}
	// A package that needs a Node built-in with a polyfill gets it (at
	// most once a built-in), and the tree is checked again.
	for range len(polyfills) + 1 {
		if err := r.resolve(ctx, e, byPath, fetched, queue); err != nil {
			return nil, err
		}
		dir, err := installJS(ctx, e, fetched)
		if err != nil {
			return nil, err
		}
		err = checkPackages(dir, pkgs)
		module, pf, ok := polyfillFor(err, byPath)
		if !ok {
			if err != nil {
				return nil, err
			}
			return e, nil
		}
		queue = []want{{"", pf.name, module, pf.rng}}
	}
	return nil, fmt.Errorf("the packages %s need more of Node's built-in modules than flowctl gives", e.Key)
}

// want is a package a tree needs: by its parent's path ("" for the
// block), its name, the name it is installed as (its own, or the built-in
// module a polyfill stands for) and its range.
type want struct{ parent, name, as, rng string }

// resolve adds what the queue needs, with its dependencies, to an entry's
// tree, as npm lays it out, and fetches the tarballs of what it adds (the
// integrity the registry did not give is computed, one it gave checked).
func (r *npmResolver) resolve(ctx context.Context, e *JSEntry, byPath map[string]*JSPackage, fetched map[string][]byte, queue []want) error {
	added := len(e.Tree)
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		if !lang.IsNPMName(w.name) {
			return fmt.Errorf("the npm registry's %q (needed by %s) is not an npm package's name", w.name, orTop(w.parent))
		}
		c, err := semver.NewConstraint(w.rng)
		if err != nil {
			return fmt.Errorf("package %q (needed by %s): %q is not a semver range npm's lock can pin", w.name, orTop(w.parent), w.rng)
		}
		place := ""
		for _, dir := range ancestors(w.parent) {
			cand := path.Join(dir, "node_modules", w.as)
			if p, ok := byPath[cand]; ok {
				if v, err := semver.StrictNewVersion(p.Version); err == nil && c.Check(v) && p.Name == w.name {
					place = "found"
				} else {
					place = path.Join(w.parent, "node_modules", w.as)
				}
				break
			}
		}
		if place == "found" {
			continue
		}
		if place == "" {
			place = path.Join("node_modules", w.as)
		}
		version, d, err := r.pick(ctx, w.name, w.rng)
		if err != nil {
			return err
		}
		meta := d.Versions[version]
		p := &JSPackage{Path: place, Name: w.name, Version: version, Resolved: meta.Dist.Tarball, Integrity: sha512Of(meta.Dist.Integrity)}
		if p.Resolved == "" {
			return fmt.Errorf("the npm registry gives no tarball for %s@%s", w.name, version)
		}
		byPath[place] = p
		e.Tree = append(e.Tree, p)
		for _, dep := range sortedNames(meta.Dependencies) {
			queue = append(queue, want{place, dep, dep, meta.Dependencies[dep]})
		}
	}
	for _, p := range e.Tree[added:] {
		b, err := fetchTarball(ctx, r.client, p)
		if err != nil {
			return err
		}
		if p.Integrity == "" {
			p.Integrity = integrityOf(b)
		}
		fetched[p.Path] = b
	}
	return nil
}

func orTop(parent string) string {
	if parent == "" {
		return "the block"
	}
	return parent
}

// ancestors are the directories Node's resolution looks in for a
// package required from the package at dir ("" for the block): dir, then
// the packages it is nested under, then the top.
func ancestors(dir string) []string {
	out := []string{dir}
	for dir != "" {
		i := strings.LastIndex(dir, "/node_modules/")
		if i < 0 {
			dir = ""
		} else {
			dir = dir[:i]
		}
		out = append(out, dir)
	}
	return out
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// sha512Of keeps the sha512 hash of a Subresource Integrity value ("" when
// it has none: older packages have sha1 only, and lock computes it).
func sha512Of(integrity string) string {
	for _, f := range strings.Fields(integrity) {
		if strings.HasPrefix(f, "sha512-") {
			return f
		}
	}
	return ""
}

func integrityOf(b []byte) string {
	sum := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

// fetchTarball fetches a package's tarball and checks it against the
// integrity the lock has for it, when it has one. The tarball's URL must
// be on the registry of the environment (Registry: the same scheme and
// host), so that a lock naming another host (a machine of the local
// network, a cloud's metadata address) makes apply ask it nothing.
func fetchTarball(ctx context.Context, client *http.Client, p *JSPackage) ([]byte, error) {
	if !onRegistry(p.Resolved) {
		return nil, fmt.Errorf("the tarball of %s@%s, %s, is not on the npm registry %s (npm_config_registry): tarballs are fetched from the registry only", p.Name, p.Version, p.Resolved, Registry())
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.Resolved, nil)
	if err != nil {
		return nil, fmt.Errorf("the tarball of %s@%s: %w", p.Name, p.Version, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching the tarball of %s@%s: %w", p.Name, p.Version, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching the tarball of %s@%s: %s answered %s", p.Name, p.Version, p.Resolved, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxTarball+1))
	if err != nil {
		return nil, fmt.Errorf("fetching the tarball of %s@%s: %w", p.Name, p.Version, err)
	}
	if len(b) > maxTarball {
		return nil, fmt.Errorf("the tarball of %s@%s is over %d MiB", p.Name, p.Version, maxTarball>>20)
	}
	if p.Integrity != "" && integrityOf(b) != p.Integrity {
		return nil, &IntegrityError{Package: p.Name + "@" + p.Version, URL: p.Resolved, Want: p.Integrity, Got: integrityOf(b)}
	}
	return b, nil
}

// IntegrityError is a tarball whose content is not what the lock pins.
type IntegrityError struct {
	Package, URL, Want, Got string
}

func (e *IntegrityError) Error() string {
	return fmt.Sprintf("the tarball of %s (%s) does not match the lock's integrity: the lock has %s, the tarball is %s; it is refused", e.Package, e.URL, e.Want, e.Got)
}

// onRegistry says whether a URL has the scheme and host of the registry
// of the environment.
func onRegistry(raw string) bool {
	u, err := url.Parse(raw)
	reg, rerr := url.Parse(Registry())
	return err == nil && rerr == nil && u.Scheme == reg.Scheme && strings.EqualFold(u.Host, reg.Host)
}

// OnRegistry says whether every tarball of an entry is on the registry of
// the environment, which alone they are fetched from: an entry locked
// against another registry is locked again.
func (e *JSEntry) OnRegistry() bool {
	for _, p := range e.Tree {
		if !onRegistry(p.Resolved) {
			return false
		}
	}
	return true
}
