package deps

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// FileName is the lock file's name, beside the flows.
const FileName = "flowctl.lock.hcl"

// Lock is a lock file's content.
type Lock struct {
	Python []*PythonEntry `hcl:"python,block"`
	JS     []*JSEntry     `hcl:"js,block"`
	Go     []*GoEntry     `hcl:"go,block"`
}

// PythonEntry is the locked packages of one set of requirements.
type PythonEntry struct {
	// Key is the requirements' canonical form (lang.RequirementsKey).
	Key          string   `hcl:"key,label"`
	Requirements []string `hcl:"requirements"`
	// Python is the interpreter's tag (cp311) and Platform its platform
	// (linux_x86_64): the wheels were chosen for them.
	Python   string     `hcl:"python"`
	Platform string     `hcl:"platform"`
	Packages []*Package `hcl:"package,block"`
	Range    hcl.Range  `hcl:",def_range"`
}

// Package is one locked package.
type Package struct {
	Name    string   `hcl:"name,label"`
	Version string   `hcl:"version"`
	Wheel   string   `hcl:"wheel"`
	Hash    string   `hcl:"sha256"`
	Modules []string `hcl:"modules"`
}

// Hash identifies an entry's exact content: the environment it installs
// is kept under it.
func (e *PythonEntry) Hash() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", e.Key, e.Python, e.Platform)
	for _, p := range e.Packages {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", p.Name, p.Version, p.Wheel, p.Hash)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Modules are the top-level modules the entry's packages provide: what a
// block with these requirements may import besides the allowlist.
func (e *PythonEntry) Modules() []string {
	var out []string
	for _, p := range e.Packages {
		out = append(out, p.Modules...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// PythonFor returns the entry of a set of requirements, nil when the lock
// has none.
func (l *Lock) PythonFor(reqs []string) *PythonEntry {
	if l == nil {
		return nil
	}
	key := lang.RequirementsKey(reqs)
	for _, e := range l.Python {
		if e.Key == key {
			return e
		}
	}
	return nil
}

// Find returns the lock file that applies to a file: flowctl.lock.hcl in
// its directory or the nearest parent that has one; "" when none does.
func Find(file string) string {
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, FileName)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// What a lock file's python packages may be: a name, a PEP 440 version,
// a wheel's file name, a top-level module's name.
var (
	pythonNamePattern    = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`)
	pythonVersionPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.+!_-]*$`)
	wheelPattern         = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+!-]*\.whl$`)
	moduleNamePattern    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Read reads a lock file: what it names is checked to be what flowctl
// lock writes, since a hand-edited one is installed from.
func Read(path string) (*Lock, hcl.Diagnostics) {
	f, diags := hclparse.NewParser().ParseHCLFile(path)
	if diags.HasErrors() {
		return nil, diags
	}
	var l Lock
	if diags := gohcl.DecodeBody(f.Body, nil, &l); diags.HasErrors() {
		return nil, diags
	}
	for _, e := range l.Python {
		if lang.RequirementsKey(e.Requirements) != e.Key {
			return nil, lang.Error(e.Range, "Invalid lock file", "The requirements of entry %q of %s are not its key.", e.Key, path)
		}
		for _, p := range e.Packages {
			// Name and version are written into the requirements file pip
			// installs from: nothing in them may read as a pip option, a
			// URL or a second line.
			if !pythonNamePattern.MatchString(p.Name) || !pythonVersionPattern.MatchString(p.Version) {
				return nil, lang.Error(e.Range, "Invalid lock file", "The package %q of %s has no valid name and version (%q).", p.Name, path, p.Version)
			}
			if len(p.Hash) != 64 || strings.Trim(p.Hash, "0123456789abcdef") != "" {
				return nil, lang.Error(e.Range, "Invalid lock file", "The package %s of %s has no valid sha256 (64 hexadecimal digits).", p.Name, path)
			}
			if filepath.Base(p.Wheel) != p.Wheel || !wheelPattern.MatchString(p.Wheel) {
				return nil, lang.Error(e.Range, "Invalid lock file", "The package %s of %s names no wheel file.", p.Name, path)
			}
			for _, m := range p.Modules {
				if !moduleNamePattern.MatchString(m) {
					return nil, lang.Error(e.Range, "Invalid lock file", "The package %s of %s names %q, which is not a python module's name.", p.Name, path, m)
				}
			}
		}
	}
	if diags := l.checkJSGo(path); diags.HasErrors() {
		return nil, diags
	}
	return &l, nil
}

// Bytes is the lock file's text: entries and packages sorted, so that the
// same lock is the same file.
func (l *Lock) Bytes() []byte {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	body.AppendUnstructuredTokens(hclwrite.Tokens{{Type: hclsyntax.TokenComment, Bytes: []byte(
		"# The exact packages of the code blocks' dependencies, written by\n# flowctl lock. Keep it under version control: apply installs what it\n# says, and nothing else.\n")}})
	entries := slices.Clone(l.Python)
	slices.SortFunc(entries, func(a, b *PythonEntry) int { return strings.Compare(a.Key, b.Key) })
	for _, e := range entries {
		body.AppendNewline()
		b := body.AppendNewBlock("python", []string{e.Key}).Body()
		b.SetAttributeValue("requirements", strings2(e.Requirements))
		b.SetAttributeValue("python", cty.StringVal(e.Python))
		b.SetAttributeValue("platform", cty.StringVal(e.Platform))
		pkgs := slices.Clone(e.Packages)
		slices.SortFunc(pkgs, func(a, b *Package) int { return strings.Compare(a.Name, b.Name) })
		for _, p := range pkgs {
			b.AppendNewline()
			pb := b.AppendNewBlock("package", []string{p.Name}).Body()
			pb.SetAttributeValue("version", cty.StringVal(p.Version))
			pb.SetAttributeValue("wheel", cty.StringVal(p.Wheel))
			pb.SetAttributeValue("sha256", cty.StringVal(p.Hash))
			pb.SetAttributeValue("modules", strings2(p.Modules))
		}
	}
	l.appendJSGo(body)
	return hclwrite.Format(f.Bytes())
}

func strings2(ss []string) cty.Value {
	if len(ss) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	vals := make([]cty.Value, len(ss))
	for i, s := range ss {
		vals[i] = cty.StringVal(s)
	}
	return cty.ListVal(vals)
}

// NotLockedError says that a block's requirements are not pinned: there
// is no lock file (Lock is ""), or it has no entry for them.
type NotLockedError struct {
	Lock, Key string
}

func (e *NotLockedError) Error() string {
	if e.Lock == "" {
		return "no " + FileName + " beside the flow pins its packages (run flowctl lock)"
	}
	return e.Lock + " does not pin its requirements " + e.Key + " (run flowctl lock)"
}

// PythonOf returns the locked entry of the requirements of a block
// defined in file, from the lock file that applies to it (Find): a
// *NotLockedError when there is none, the lock file's diagnostics when it
// cannot be read.
func PythonOf(file string, reqs []string) (*PythonEntry, error) {
	path := Find(file)
	if path == "" {
		return nil, &NotLockedError{}
	}
	lock, err := readCached(path)
	if err != nil {
		return nil, err
	}
	e := lock.PythonFor(reqs)
	if e == nil {
		return nil, &NotLockedError{Lock: path, Key: lang.RequirementsKey(reqs)}
	}
	return e, nil
}

var lockCache sync.Map // path → cachedLock

type cachedLock struct {
	mod  time.Time
	size int64
	lock *Lock
}

// readCached reads a lock file once while it does not change.
func readCached(path string) (*Lock, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if c, ok := lockCache.Load(path); ok {
		if c := c.(cachedLock); c.mod.Equal(info.ModTime()) && c.size == info.Size() {
			return c.lock, nil
		}
	}
	lock, diags := Read(path)
	if diags.HasErrors() {
		return nil, diags
	}
	lockCache.Store(path, cachedLock{info.ModTime(), info.Size(), lock})
	return lock, nil
}
