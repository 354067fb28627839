package depstest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// GoModule is one version of a module a test's proxy serves: its files
// (go.mod is written from Path unless given).
type GoModule struct {
	Path, Version string
	Files         map[string]string
}

// GoProxy writes a GOPROXY=file:// directory serving the modules given
// (list, .info, .mod and .zip of each version), and points the go command
// at it: GOPROXY, GOSUMDB=off (the checksum database knows them not),
// and a module cache of the test's own, removed after it.
func GoProxy(t testing.TB, mods ...GoModule) string {
	t.Helper()
	dir := t.TempDir()
	for _, m := range mods {
		WriteGoModule(t, dir, m)
	}
	cache := t.TempDir()
	t.Cleanup(func() { CleanModCache(cache) })
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(dir))
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOFLAGS", "")
	t.Setenv("GOMODCACHE", cache)
	return dir
}

// WriteGoModule writes (or rewrites: a module changed after it was
// locked) one module version into a proxy directory.
func WriteGoModule(t testing.TB, dir string, m GoModule) {
	t.Helper()
	files := map[string]string{}
	for k, v := range m.Files {
		files[k] = v
	}
	if _, ok := files["go.mod"]; !ok {
		files["go.mod"] = "module " + m.Path + "\n\ngo 1.21\n"
	}
	escaped, err := module.EscapePath(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	at := filepath.Join(dir, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	for name, body := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var z bytes.Buffer
	if err := zip.CreateFromDir(&z, module.Version{Path: m.Path, Version: m.Version}, src); err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": m.Version, "Time": "2026-01-01T00:00:00Z"})
	for name, body := range map[string][]byte{
		m.Version + ".info": info, m.Version + ".mod": []byte(files["go.mod"]), m.Version + ".zip": z.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(at, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	list, _ := os.ReadFile(filepath.Join(at, "list"))
	if !bytes.Contains(list, []byte(m.Version+"\n")) {
		list = append(list, m.Version+"\n"...)
	}
	if err := os.WriteFile(filepath.Join(at, "list"), list, 0o644); err != nil {
		t.Fatal(err)
	}
}

// CleanModCache removes a module cache's read-only files (go clean
// -modcache), so that the test's directory can be removed.
func CleanModCache(dir string) {
	cmd := exec.Command("go", "clean", "-modcache")
	cmd.Env = append(os.Environ(), "GOMODCACHE="+dir)
	cmd.Run()
}
