package deps

import (
	"debug/elf"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// systemLibDirs are where the dynamic loader finds shared libraries that
// a package's native code needs and does not carry.
func systemLibDirs() []string {
	arch := map[string]string{"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu"}[runtime.GOARCH]
	dirs := []string{"/lib", "/usr/lib", "/lib64", "/usr/lib64", "/usr/local/lib"}
	if arch != "" {
		dirs = append([]string{"/lib/" + arch, "/usr/lib/" + arch}, dirs...)
	}
	return dirs
}

// nativeLibraries are the shared libraries outside an environment that
// the native code in it needs (DT_NEEDED, followed through the libraries
// it finds, and through their symbolic links): the python worker's
// confinement lets it read them, as it lets it read those the interpreter
// maps. They are found by reading the files' ELF headers: no package code
// runs. Libraries a package carries (beside it, $ORIGIN) are in the
// environment, which the worker reads anyway.
func nativeLibraries(env string) []string {
	var queue []string
	filepath.WalkDir(env, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && (strings.HasSuffix(p, ".so") || strings.Contains(d.Name(), ".so.")) {
			queue = append(queue, p)
		}
		return nil
	})
	seen := map[string]bool{}
	var out []string
	for len(queue) > 0 {
		file := queue[0]
		queue = queue[1:]
		f, err := elf.Open(file)
		if err != nil {
			continue
		}
		needed, _ := f.ImportedLibraries()
		runpaths, _ := f.DynString(elf.DT_RUNPATH)
		rpaths, _ := f.DynString(elf.DT_RPATH)
		f.Close()
		var dirs []string
		for _, rp := range append(runpaths, rpaths...) {
			for _, d := range strings.Split(rp, ":") {
				dirs = append(dirs, strings.ReplaceAll(d, "$ORIGIN", filepath.Dir(file)))
			}
		}
		dirs = append(dirs, systemLibDirs()...)
		for _, name := range needed {
			for _, d := range dirs {
				p := filepath.Join(d, name)
				if _, err := os.Stat(p); err != nil {
					continue
				}
				for _, q := range linkChain(p) {
					if seen[q] || strings.HasPrefix(q, env+string(filepath.Separator)) {
						continue
					}
					seen[q] = true
					out = append(out, q)
					queue = append(queue, q)
				}
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// linkChain is a path and every path its symbolic links lead through, to
// the file.
func linkChain(p string) []string {
	chain := []string{p}
	for i := 0; i < 16; i++ {
		target, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = filepath.Clean(target)
		chain = append(chain, p)
	}
	if real, err := filepath.EvalSymlinks(chain[0]); err == nil && !slices.Contains(chain, real) {
		chain = append(chain, real)
	}
	return chain
}
