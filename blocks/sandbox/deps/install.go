package deps

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Env is an installed environment: the directory the worker adds to its
// module path (read-only), and the top-level modules a block may import
// from it.
type Env struct {
	Dir     string
	Modules []string
	// Libraries are the shared libraries outside Dir that its native code
	// loads (nativeLibraries): the worker may read them too.
	Libraries []string
}

// CacheDir is where environments are kept: flowctl/python-envs under the
// user's cache directory (XDG_CACHE_HOME, or ~/.cache), made when missing
// and refused when another user could change it (cacheRoot).
func CacheDir() (string, error) {
	return cacheRoot("python-envs")
}

// marker is the file an environment is complete with, written last.
const marker = ".flowctl-env.json"

var installing sync.Map // entry hash → *sync.Mutex

// Install returns the environment of a locked entry, installing it first
// when the cache does not have it: pip installs exactly the entry's
// wheels (--no-deps, --require-hashes: a wheel whose hash differs from
// the lock's is refused) into a new directory, which is made read-only
// and renamed into place, so that an environment is there whole or not at
// all. An environment already there needs neither pip nor the network.
func (i *Interpreter) Install(ctx context.Context, e *PythonEntry) (*Env, error) {
	if e.Python != i.Tag || e.Platform != i.Platform {
		return nil, fmt.Errorf("the lock's packages for %s were chosen for %s on %s, and this python is %s on %s: run flowctl lock on this platform", e.Key, e.Python, e.Platform, i.Tag, i.Platform)
	}
	root, err := CacheDir()
	if err != nil {
		return nil, err
	}
	hash := e.Hash()
	dir := filepath.Join(root, hash)
	env := &Env{Dir: dir, Modules: e.Modules()}
	mu, _ := installing.LoadOrStore(hash, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	if m := complete(dir, hash); m != nil {
		env.Libraries = m.Libraries
		return env, nil
	}
	tmp, err := os.MkdirTemp(root, "."+hash+"-")
	if err != nil {
		return nil, err
	}
	defer func() { makeWritable(tmp); os.RemoveAll(tmp) }()
	var reqs strings.Builder
	for _, p := range e.Packages {
		fmt.Fprintf(&reqs, "%s==%s --hash=sha256:%s\n", p.Name, p.Version, p.Hash)
	}
	reqFile := filepath.Join(tmp, "requirements.txt")
	if err := os.WriteFile(reqFile, []byte(reqs.String()), 0o600); err != nil {
		return nil, err
	}
	target := filepath.Join(tmp, "env")
	if err := i.pip(ctx, "install", "--no-deps", "--require-hashes", "--only-binary=:all:", "--no-compile", "--target", target, "-r", reqFile); err != nil {
		return nil, fmt.Errorf("installing the packages of %s: %w", e.Key, err)
	}
	env.Libraries = nativeLibraries(target)
	b, _ := json.Marshal(envMarker{Hash: hash, Key: e.Key, Python: e.Python, Platform: e.Platform, Libraries: env.Libraries})
	if err := os.WriteFile(filepath.Join(target, marker), b, 0o444); err != nil {
		return nil, err
	}
	if err := makeReadOnly(target); err != nil {
		return nil, err
	}
	if err := os.Rename(target, dir); err != nil {
		if m := complete(dir, hash); m != nil { // another process installed it meanwhile
			env.Libraries = m.Libraries
			return env, nil
		}
		return nil, err
	}
	return env, nil
}

// envMarker is the file an environment is complete with.
type envMarker struct {
	Hash      string   `json:"hash"`
	Key       string   `json:"key"`
	Python    string   `json:"python"`
	Platform  string   `json:"platform"`
	Libraries []string `json:"libraries,omitempty"`
}

// complete returns the marker of an environment that is there whole, nil
// when it is not.
func complete(dir, hash string) *envMarker {
	b, err := os.ReadFile(filepath.Join(dir, marker))
	if err != nil {
		return nil
	}
	var m envMarker
	if json.Unmarshal(b, &m) != nil || m.Hash != hash {
		return nil
	}
	return &m
}

// makeReadOnly takes the write permission from every file and directory
// of an environment: packages read it, nothing writes it.
func makeReadOnly(dir string) error {
	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		if d.IsDir() {
			dirs = append(dirs, p) // after their files
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.Chmod(p, info.Mode().Perm()&^0o222)
	})
	for i := len(dirs) - 1; i >= 0 && err == nil; i-- {
		err = os.Chmod(dirs[i], 0o555)
	}
	return err
}

// makeWritable gives a directory's tree back its write permission, to
// remove it.
func makeWritable(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}
