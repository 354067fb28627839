package importer

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Written is a file of an import's result as it is on disk after Write.
type Written struct {
	Path string // the output directory joined with the file's name
	// Unchanged: the file held these bytes already, and was left alone.
	Unchanged bool
}

// Write writes files (an import's result) under dir, which it makes when
// missing. The names come from the sources (a flow's name), so Write
// confines every file to dir: it opens dir as an os.Root, which follows
// no symbolic link out of it, and refuses a file whose directory is
// reached through one. It checks every file before it writes any: a file
// that exists with other bytes, or is a symbolic link, is refused unless
// force, and nothing is written when any file is refused, with a
// diagnostic naming each. A file that exists with the same bytes is left
// alone (the block file every n8n import writes). Each file is written
// to a temporary file in its directory and moved into place, so a reader
// sees the old file or the new one, never a part; without force the move
// refuses to replace a file that appeared since the check.
func Write(dir string, files []File, force bool) ([]Written, hcl.Diagnostics) {
	var root *os.Root
	switch r, err := os.OpenRoot(dir); {
	case err == nil:
		root = r
		defer root.Close()
	case !errors.Is(err, fs.ErrNotExist):
		return nil, hcl.Diagnostics{writeDiag(dir, err.Error())}
	}
	var diags hcl.Diagnostics
	out := make([]Written, len(files))
	for i, f := range files {
		name := filepath.FromSlash(f.Name)
		path := filepath.Join(dir, name)
		out[i].Path = path
		if !filepath.IsLocal(name) {
			// A bug of the importer: names are made of snake_case words.
			diags = append(diags, writeDiag(path, "its name leads out of the output directory"))
			continue
		}
		if root == nil {
			continue
		}
		same, d := checkExisting(root, dir, name, f.Bytes, force)
		diags = append(diags, d...)
		out[i].Unchanged = same
	}
	if diags.HasErrors() {
		return nil, diags
	}
	if root == nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, hcl.Diagnostics{writeDiag(dir, err.Error())}
		}
		r, err := os.OpenRoot(dir)
		if err != nil {
			return nil, hcl.Diagnostics{writeDiag(dir, err.Error())}
		}
		root = r
		defer root.Close()
	}
	for i, f := range files {
		if out[i].Unchanged {
			continue
		}
		if err := writeFile(root, filepath.FromSlash(f.Name), f.Bytes, force); err != nil {
			reason := err.Error()
			if errors.Is(err, fs.ErrExist) {
				reason = "it was made while import ran, and import does not replace it; run import again, with --force to replace it"
			}
			return nil, hcl.Diagnostics{writeDiag(out[i].Path, reason)}
		}
	}
	return out, nil
}

// checkExisting looks at what is at name under root: nothing, or a
// regular file with these bytes, may be written (same: it is there
// already); a file with other bytes or a symbolic link only with force;
// anything else, or a directory reached through a symbolic link out of
// root, never.
func checkExisting(root *os.Root, dir, name string, b []byte, force bool) (same bool, diags hcl.Diagnostics) {
	path := filepath.Join(dir, name)
	info, err := root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		if link := symlinkOnTheWay(root, name); link != "" {
			return false, hcl.Diagnostics{writeDiag(path, fmt.Sprintf("%s is a symbolic link that leads out of %s, and import writes only inside the output directory", filepath.Join(dir, link), dir))}
		}
		return false, hcl.Diagnostics{writeDiag(path, unwrapPathError(err))}
	case info.Mode()&fs.ModeSymlink != 0:
		if force {
			return false, nil // the rename replaces the link, not what it points to
		}
		return false, hcl.Diagnostics{refused(path, "is a symbolic link; with --force import replaces the link with the file (what it points to is left alone)")}
	case !info.Mode().IsRegular():
		return false, hcl.Diagnostics{writeDiag(path, "it exists and is not a regular file")}
	}
	if info.Size() == int64(len(b)) {
		if now, err := root.ReadFile(name); err == nil && bytes.Equal(now, b) {
			return true, nil
		}
	}
	if force {
		return false, nil
	}
	return false, hcl.Diagnostics{refused(path, "exists with other content; import does not replace a file unless --force")}
}

// symlinkOnTheWay is the first directory of name that is a symbolic link
// root does not follow (one that leads out of it), or "".
func symlinkOnTheWay(root *os.Root, name string) string {
	parts := strings.Split(name, string(filepath.Separator))
	for i := 1; i < len(parts); i++ {
		prefix := filepath.Join(parts[:i]...)
		info, err := root.Lstat(prefix)
		if err != nil {
			return ""
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			if _, err := root.Stat(prefix); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return prefix
			}
		}
	}
	return ""
}

// writeFile writes b to name under root through a temporary file in the
// same directory: renamed over name with force, else linked to name,
// which fails when name exists (fs.ErrExist).
func writeFile(root *os.Root, name string, b []byte, force bool) (err error) {
	if d := filepath.Dir(name); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	tmp, f, err := createTemp(root, name)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			root.Remove(tmp)
		}
	}()
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if force {
		return root.Rename(tmp, name)
	}
	if err := root.Link(tmp, name); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		// A file system without hard links: rename, when name is still
		// not there.
		if _, lerr := root.Lstat(name); !errors.Is(lerr, fs.ErrNotExist) {
			return fs.ErrExist
		}
		return root.Rename(tmp, name)
	}
	return root.Remove(tmp)
}

// createTemp makes a new file beside name, .NAME.RANDOM.tmp.
func createTemp(root *os.Root, name string) (string, *os.File, error) {
	for range 10 {
		var r [6]byte
		rand.Read(r[:])
		tmp := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+"."+hex.EncodeToString(r[:])+".tmp")
		f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return tmp, f, err
	}
	return "", nil, fmt.Errorf("no unused temporary name beside %s", name)
}

// FileExistsSummary is the summary of the diagnostic of a file Write
// would not replace without force.
const FileExistsSummary = "File exists"

func refused(path, why string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "File exists", // FileExistsSummary
		Detail: path + " " + why + "."}
}

func writeDiag(path, reason string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot write file",
		Detail: "The file " + path + " cannot be written: " + strings.TrimSuffix(reason, ".") + "."}
}

func unwrapPathError(err error) string {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
