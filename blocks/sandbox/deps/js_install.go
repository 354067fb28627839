package deps

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// cacheRoot is flowctl's directory sub under the user's cache directory,
// made when missing: it and flowctl/ must be the user's and writable by
// no one else (checkPrivate), since what is found there is run.
func cacheRoot(sub string) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	root := filepath.Join(dir, "flowctl", sub)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	for _, d := range []string{filepath.Dir(root), root} {
		if err := checkPrivate(d); err != nil {
			return "", err
		}
	}
	return root, nil
}

// InstallJS returns the directory of a locked JS entry's packages (its
// node_modules tree), installing it first when the cache does not have
// it: every tarball is fetched from the URL the lock gives and checked
// against the lock's integrity (a tarball that differs is refused, and
// nothing is installed), unpacked at its place in the tree, and the tree
// made read-only and renamed into place under
// flowctl/js-packages/HASH of the user's cache. A tree already there
// needs no network.
func InstallJS(ctx context.Context, e *JSEntry) (string, error) {
	return installJS(ctx, e, nil)
}

// installJS is InstallJS with tarballs fetched already, by path.
func installJS(ctx context.Context, e *JSEntry, fetched map[string][]byte) (string, error) {
	root, err := cacheRoot("js-packages")
	if err != nil {
		return "", err
	}
	hash := e.Hash()
	dir := filepath.Join(root, hash)
	mu, _ := installing.LoadOrStore("js:"+hash, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	if complete(dir, hash) != nil {
		return dir, nil
	}
	tmp, err := os.MkdirTemp(root, "."+hash+"-")
	if err != nil {
		return "", err
	}
	defer func() { makeWritable(tmp); os.RemoveAll(tmp) }()
	target := filepath.Join(tmp, "tree")
	for _, p := range e.sorted() {
		if !p.inTree() {
			return "", fmt.Errorf("the package path %q is not node_modules/NAME", p.Path)
		}
		b := fetched[p.Path]
		if b == nil {
			if b, err = fetchTarball(ctx, http.DefaultClient, p); err != nil {
				return "", err
			}
		} else if integrityOf(b) != p.Integrity {
			return "", &IntegrityError{Package: p.Name + "@" + p.Version, URL: p.Resolved, Want: p.Integrity, Got: integrityOf(b)}
		}
		if err := unpack(b, filepath.Join(target, filepath.FromSlash(p.Path))); err != nil {
			return "", fmt.Errorf("unpacking %s@%s: %w", p.Name, p.Version, err)
		}
	}
	b, _ := json.Marshal(map[string]any{"hash": hash, "key": e.Key})
	if err := os.WriteFile(filepath.Join(target, marker), b, 0o444); err != nil {
		return "", err
	}
	if err := makeReadOnly(target); err != nil {
		return "", err
	}
	if err := os.Rename(target, dir); err != nil {
		if complete(dir, hash) != nil {
			return dir, nil
		}
		return "", err
	}
	return dir, nil
}

// unpack writes an npm tarball's regular files and directories into dir,
// without its first path component (package/); links, devices and paths
// leaving dir are skipped or refused.
func unpack(tgz []byte, dir string) error {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	total := int64(0)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "/"))
		_, rest, ok := strings.Cut(name, "/")
		if !ok || rest == "" {
			continue
		}
		if rest == ".." || strings.HasPrefix(rest, "../") {
			return fmt.Errorf("the tarball has a path outside its package: %s", h.Name)
		}
		dest := filepath.Join(dir, filepath.FromSlash(rest))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dest, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			total += h.Size
			if total > 512<<20 {
				return errors.New("the tarball unpacks to over 512 MiB")
			}
			if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(dest, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}
