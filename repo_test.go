// The repository's own checks: what is tracked in git. .ci/run runs them
// first, and go test ./... runs them with everything else.
package flowctl_test

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxTrackedSize is the largest file the repository may track: anything
// larger is a build output, a dump or data that belongs elsewhere.
const maxTrackedSize = 1_000_000

// binaryMagics are the first bytes of executables and compiled code: ELF,
// Mach-O (32 and 64 bits, both byte orders; universal binaries and Java
// class files share cafebabe). PE files ("MZ") are checked apart, since
// text may start with those two letters.
var binaryMagics = [][]byte{
	{0x7f, 'E', 'L', 'F'},
	{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf},
	{0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
}

// trackedProblems lists the files tracked in the git work tree at dir
// that are executable binaries or larger than maxTrackedSize.
func trackedProblems(dir string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	var problems []string
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			continue // deleted in the work tree, not yet in the index
		}
		info, err := f.Stat()
		if err != nil || !info.Mode().IsRegular() {
			f.Close()
			continue
		}
		head := make([]byte, 1024)
		n, _ := io.ReadFull(f, head)
		f.Close()
		head = head[:n]
		if info.Size() > maxTrackedSize {
			problems = append(problems, fmt.Sprintf("%s: %d bytes, over the 1 MB limit for tracked files", name, info.Size()))
		}
		if isBinary(head) {
			problems = append(problems, name+": an executable binary")
		}
	}
	return problems, nil
}

func isBinary(head []byte) bool {
	for _, m := range binaryMagics {
		if bytes.HasPrefix(head, m) {
			return true
		}
	}
	return bytes.HasPrefix(head, []byte("MZ")) && bytes.IndexByte(head, 0) >= 0
}

// TestTrackedFiles fails when the repository tracks a build output.
func TestTrackedFiles(t *testing.T) {
	if _, err := os.Stat(".git"); err != nil {
		t.Skip("not a git work tree")
	}
	problems, err := trackedProblems(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("remove these files from the repository (git rm --cached FILE) and add build outputs to .gitignore:\n%s",
			strings.Join(problems, "\n"))
	}
}

// TestTrackedFilesCheck makes sure the check above finds what it must.
func TestTrackedFilesCheck(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	elf := append([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1}, make([]byte, 64)...)
	pe := append([]byte("MZ\x90\x00\x03"), make([]byte, 64)...)
	cases := []struct {
		name  string
		files map[string][]byte
		want  []string
	}{
		{"clean", map[string][]byte{"main.go": []byte("package main\n"), "README.md": []byte("MZ is a text here.\n")}, nil},
		{"elf", map[string][]byte{"apply": elf, "a.go": []byte("package a\n")}, []string{"apply: an executable binary"}},
		{"pe", map[string][]byte{"bin/tool.exe": pe}, []string{"bin/tool.exe: an executable binary"}},
		{"large", map[string][]byte{"dump.json": bytes.Repeat([]byte("x"), maxTrackedSize+1)},
			[]string{"dump.json: 1000001 bytes, over the 1 MB limit for tracked files"}},
		{"limit", map[string][]byte{"data.txt": bytes.Repeat([]byte("x"), maxTrackedSize)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			git := func(args ...string) {
				cmd := exec.Command("git", args...)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			git("init", "-q")
			for name, b := range c.files {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, b, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			git("add", ".")
			got, err := trackedProblems(dir)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestBenchProgramsIgnored: `go build ./bench/NAME` in the repository
// writes the binary NAME at its root, so every program under bench/ is in
// .gitignore, where git add would otherwise take it in.
func TestBenchProgramsIgnored(t *testing.T) {
	ignore, err := os.ReadFile(".gitignore")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(ignore), "\n")
	mains, err := filepath.Glob(filepath.Join("bench", "*", "main.go"))
	if err != nil || len(mains) == 0 {
		t.Fatalf("no programs under bench/ (%v)", err)
	}
	for _, m := range mains {
		name := filepath.Base(filepath.Dir(m))
		found := false
		for _, l := range lines {
			found = found || strings.TrimSpace(l) == "/"+name
		}
		if !found {
			t.Errorf(".gitignore does not list /%s, the binary go build ./bench/%s writes", name, name)
		}
	}
}

// undocumentedEnv are the FLOWCTL_ variables that are not the user's to
// set, so the docs leave them out: a worker's parent sets
// FLOWCTL_WORKER_UNSHARE for it, and FLOWCTL_TEST_ variables are read by
// test binaries only.
var undocumentedEnv = map[string]bool{"FLOWCTL_WORKER_UNSHARE": true}

// TestEnvDocumented: every FLOWCTL_ environment variable the source names
// is documented under docs/ (or in README.md).
func TestEnvDocumented(t *testing.T) {
	var docs strings.Builder
	md, _ := filepath.Glob("docs/*.md")
	for _, p := range append(md, "README.md") {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(b)
	}
	named := regexp.MustCompile(`"(FLOWCTL_[A-Z0-9_]+)"`)
	seen := map[string]string{}
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go"):
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range named.FindAllSubmatch(b, -1) {
			seen[string(m[1])] = p
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 {
		t.Fatal("the source names no FLOWCTL_ variable")
	}
	for name, file := range seen {
		if !undocumentedEnv[name] && !strings.HasPrefix(name, "FLOWCTL_TEST_") && !strings.Contains(docs.String(), name) {
			t.Errorf("%s (%s) is not documented under docs/", name, file)
		}
	}
}

// TestCommandLayerSize: the command layer stays thin (docs/design.md,
// "The command layer"): cmd/flowctl/cli's own non-test Go is at most
// 4,000 lines, no command file over 200; what a command does lives in
// the packages below it, its arguments in cli/arguments, its printing in
// cli/views.
func TestCommandLayerSize(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("cmd", "flowctl", "cli", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		n := strings.Count(string(b), "\n")
		total += n
		if n > 200 {
			t.Errorf("%s has %d lines: move what it does below the command layer", name, n)
		}
	}
	if total > 4000 {
		t.Errorf("cmd/flowctl/cli has %d lines of non-test Go, over 4,000", total)
	}
}

// TestCIInstallsWhatTestsAskFor: every Debian package a test's message
// asks to install ("apt-get install python3-numpy") is one .ci/run
// installs, so that CI runs those tests rather than failing them (the
// python package tests never skip).
func TestCIInstallsWhatTestsAskFor(t *testing.T) {
	ci, err := os.ReadFile(filepath.Join(".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	installed := map[string]bool{}
	for _, m := range regexp.MustCompile(`apt-get install -y -qq((?: [a-z0-9][a-z0-9.+-]*)+)`).FindAllStringSubmatch(string(ci), -1) {
		for _, p := range strings.Fields(m[1]) {
			installed[p] = true
		}
	}
	asked := regexp.MustCompile(`apt-get install((?: [a-z0-9][a-z0-9.+-]*)+)`)
	n := 0
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "node_modules") {
			if err == nil {
				return filepath.SkipDir
			}
			return err
		}
		if !strings.HasSuffix(path, ".go") || path == "repo_test.go" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range asked.FindAllStringSubmatch(string(src), -1) {
			for _, p := range strings.Fields(m[1]) {
				n++
				if !installed[p] {
					t.Errorf("%s asks for apt-get install %s, which .ci/run does not install", path, p)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no test asks for a Debian package: the pattern no longer finds them")
	}
}

// TestGoFileSize: no non-test Go file is over 600 lines (docs/design.md,
// "Architecture"): a file that grows past it is split where its parts
// are, not left to grow.
func TestGoFileSize(t *testing.T) {
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != "." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if n := strings.Count(string(b), "\n"); n > 600 {
			t.Errorf("%s has %d lines, over 600: split it", p, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
