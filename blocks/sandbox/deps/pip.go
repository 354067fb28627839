package deps

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/lang"
)

// Interpreter is the python that locks and installs: the one the workers
// run (pyrun.Find), so that wheels with native code fit it.
type Interpreter struct {
	Path     string
	Tag      string // cp311
	Platform string // linux_x86_64
}

// Describe asks an interpreter for its tag and platform.
func Describe(ctx context.Context, python string) (*Interpreter, error) {
	out, err := exec.CommandContext(ctx, python, "-I", "-c",
		"import json, sys, sysconfig; print(json.dumps({'tag': 'cp%d%d' % sys.version_info[:2], 'platform': sysconfig.get_platform().replace('-', '_').replace('.', '_')}))").Output()
	if err != nil {
		return nil, fmt.Errorf("python %s could not describe itself: %w", python, exitError(err))
	}
	var d struct{ Tag, Platform string }
	if err := json.Unmarshal(out, &d); err != nil || d.Tag == "" {
		return nil, fmt.Errorf("python %s described itself as %q", python, out)
	}
	return &Interpreter{Path: python, Tag: d.Tag, Platform: d.Platform}, nil
}

// pip runs python -m pip with pip's own configuration from the
// environment, and says what pip printed when it fails.
func (i *Interpreter) pip(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, i.Path, append([]string{"-m", "pip", "--disable-pip-version-check", "--no-input", "--no-color"}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return &PipError{Args: args[0], Output: lastLines(out.String(), 12), Err: err}
	}
	return nil
}

// PipError is pip's failure, with the end of what it printed.
type PipError struct {
	Args   string
	Output string
	Err    error
}

func (e *PipError) Error() string {
	return fmt.Sprintf("pip %s failed (%v): %s", e.Args, e.Err, e.Output)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func exitError(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, lastLines(string(ee.Stderr), 5))
	}
	return err
}

// LockPython resolves a set of requirements with pip (wheels only, with
// their dependencies) for this interpreter, and returns the entry that
// pins them: each wheel's version, SHA-256 and top-level modules.
func (i *Interpreter) LockPython(ctx context.Context, reqs []string) (*PythonEntry, error) {
	tmp, err := os.MkdirTemp("", "flowctl-lock-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	reqFile := filepath.Join(tmp, "requirements.txt")
	if err := os.WriteFile(reqFile, []byte(strings.Join(reqs, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	dest := filepath.Join(tmp, "wheels")
	if err := i.pip(ctx, "download", "--only-binary=:all:", "--dest", dest, "-r", reqFile); err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(dest, "*"))
	e := &PythonEntry{Key: lang.RequirementsKey(reqs), Requirements: slices.Clone(reqs), Python: i.Tag, Platform: i.Platform}
	for _, f := range files {
		if !strings.HasSuffix(f, ".whl") {
			return nil, fmt.Errorf("pip chose %s, which is not a wheel: only wheels are installed (build one with pip wheel into a directory PIP_FIND_LINKS names)", filepath.Base(f))
		}
		p, err := readWheel(f)
		if err != nil {
			return nil, err
		}
		e.Packages = append(e.Packages, p)
	}
	if len(e.Packages) == 0 {
		return nil, fmt.Errorf("pip found no wheel for %s", strings.Join(reqs, ", "))
	}
	return e, nil
}

// readWheel pins a wheel: its name and version from its file name (PEP
// 427), its hash, and its top-level modules (top_level.txt, or the first
// parts of the paths its RECORD lists).
func readWheel(path string) (*Package, error) {
	base := filepath.Base(path)
	parts := strings.Split(strings.TrimSuffix(base, ".whl"), "-")
	if len(parts) < 5 {
		return nil, fmt.Errorf("%s is not a wheel's file name", base)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	p := &Package{Name: lang.NormalizePackageName(parts[0]), Version: parts[1], Wheel: base, Hash: hex.EncodeToString(sum[:])}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("%s is not a wheel: %w", base, err)
	}
	var topLevel []string
	mods := map[string]bool{}
	for _, f := range zr.File {
		name := f.Name
		if strings.HasSuffix(name, ".dist-info/top_level.txt") {
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			text, _ := io.ReadAll(io.LimitReader(rc, 1<<16))
			rc.Close()
			topLevel = strings.Fields(string(text))
			continue
		}
		first, rest, nested := strings.Cut(name, "/")
		switch {
		case strings.HasSuffix(first, ".dist-info") || strings.HasSuffix(first, ".data") || first == "__pycache__":
		case nested && rest != "":
			mods[first] = true
		case strings.HasSuffix(first, ".py"):
			mods[strings.TrimSuffix(first, ".py")] = true
		case strings.HasSuffix(first, ".so"):
			mods[strings.SplitN(first, ".", 2)[0]] = true
		}
	}
	if topLevel != nil {
		for _, m := range topLevel {
			p.Modules = append(p.Modules, strings.SplitN(m, "/", 2)[0]) // a namespace package's path
		}
	} else {
		for m := range mods {
			p.Modules = append(p.Modules, m)
		}
	}
	// Only python names: a wheel's paths may say anything (pip refuses
	// one leaving its directory), and a lock names only modules.
	p.Modules = slices.DeleteFunc(p.Modules, func(m string) bool { return !moduleNamePattern.MatchString(m) })
	slices.Sort(p.Modules)
	p.Modules = slices.Compact(p.Modules)
	return p, nil
}
