package deps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/flowctl/flowctl/lang"
)

// lockModule is the module path of the module LockGo resolves in.
const lockModule = "flowctl.invalid/lock"

// LockGo resolves a compiled go block's require through the Go module
// proxy of the environment (GOPROXY, GONOSUMDB, GOPRIVATE and the rest,
// as the go command reads them): go mod download -json all, in a module
// of its own that requires exactly them, gives every module of the build
// list with the h1: hashes go.sum would have, checked against the
// checksum database as the go command checks them.
func LockGo(ctx context.Context, req map[string]string) (*GoEntry, error) {
	tmp, err := os.MkdirTemp("", "flowctl-lock-go-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var gomod strings.Builder
	fmt.Fprintf(&gomod, "module %s\n\ngo 1.21\n\nrequire (\n", lockModule)
	for _, path := range sortedNames(req) {
		fmt.Fprintf(&gomod, "\t%s %s\n", path, req[path])
	}
	gomod.WriteString(")\n")
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte(gomod.String()), 0o644); err != nil {
		return nil, err
	}
	out, err := goCommand(ctx, tmp, "-mod=mod", "mod", "download", "-json", "all")
	if err != nil {
		return nil, err
	}
	e := &GoEntry{Key: lang.PackagesKey(req), Require: req}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m struct{ Path, Version, Error, Sum, GoModSum string }
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go mod download printed %q: %w", out, err)
		}
		if m.Error != "" {
			return nil, fmt.Errorf("module %s@%s: %s", m.Path, m.Version, m.Error)
		}
		if m.Path == lockModule || m.Version == "" {
			continue
		}
		e.Modules = append(e.Modules, &GoModule{Path: m.Path, Version: m.Version, Sum: m.Sum, GoModSum: m.GoModSum})
	}
	if len(e.Modules) == 0 {
		return nil, fmt.Errorf("go mod download found no module for %s", e.Key)
	}
	return e, nil
}

// goCommand runs the go command in dir with the user's environment
// (GOPROXY and the rest), in module mode, without a workspace or another
// toolchain; its output is stdout, and its error says what it printed.
func goCommand(ctx context.Context, dir, flags string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS="+flags, "GOWORK=off", "GOTOOLCHAIN=local", "GO111MODULE=on")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := lastLines(stderr.String(), 8)
		if msg == "" {
			msg = lastLines(string(out), 8)
		}
		return nil, fmt.Errorf("go %s failed (%v): %s", strings.Join(args, " "), err, msg)
	}
	return out, nil
}

// GoModFiles are the go.mod require lines and the go.sum of a locked
// entry: what a compiled block's module is built with, every module at
// the version the lock pins, every hash go.sum checks.
func (e *GoEntry) GoModFiles() (require, sum string) {
	var r, s strings.Builder
	r.WriteString("require (\n")
	for _, m := range e.sorted() {
		fmt.Fprintf(&r, "\t%s %s\n", m.Path, m.Version)
		if m.Sum != "" {
			fmt.Fprintf(&s, "%s %s %s\n", m.Path, m.Version, m.Sum)
		}
		fmt.Fprintf(&s, "%s %s/go.mod %s\n", m.Path, m.Version, m.GoModSum)
	}
	r.WriteString(")\n")
	return r.String(), s.String()
}
