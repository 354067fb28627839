// Package deploy_test checks the files of deploy/: the systemd units with
// systemd-analyze verify, and the container image, built and run where a
// Docker daemon answers.
package deploy_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestSystemdUnits verifies the units (flowctl.service, and the prune
// service with its timer) with systemd-analyze verify (Debian's systemd;
// .ci/run installs it where missing). verify reports a missing ExecStart
// binary, and writes unknown keys and bad values as warnings while
// exiting 0, so the units are verified with their binary pointing at an
// executable that exists (this test's own), and any output at all is a
// failure.
func TestSystemdUnits(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs systemd-analyze (Debian's systemd): %v", err)
		}
		t.Skip("no systemd-analyze")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const bin = "/usr/local/bin/flowctl"
	dir := t.TempDir()
	args := []string{"verify", "--man=no"}
	for name, starts := range map[string]string{
		"flowctl.service":       "ExecStart=" + bin + " serve ",
		"flowctl-prune.service": "ExecStart=" + bin + " runs prune ",
		"flowctl-prune.timer":   "",
	} {
		unit, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(unit), starts) {
			t.Fatalf("%s does not hold %q", name, starts)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(unit), bin, exe)), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, analyze, args...).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("systemd-analyze verify deploy/*.service deploy/*.timer: %v\n%s", err, out)
	}
}

// TestSystemdUnitCatchesMistakes: the check above fails for a unit with a
// misspelt key or a bad value, so a passing run means something.
func TestSystemdUnitCatchesMistakes(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("no systemd-analyze")
	}
	dir := t.TempDir()
	for name, unit := range map[string]string{
		"key.service":   "[Service]\nExecStart=/bin/true\nRestartt=always\n",
		"value.service": "[Service]\nExecStart=/bin/true\nTimeoutStopSec=forty\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(unit), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command(analyze, "verify", "--man=no", path).CombinedOutput()
		if len(strings.TrimSpace(string(out))) == 0 {
			t.Errorf("systemd-analyze verify said nothing of %s", name)
		}
	}
}

// TestUnitNamespaces: flowctl.service's RestrictNamespaces allows the
// namespaces the sandbox workers make for themselves (the CLONE_NEW*
// flags of blocks/sandbox/isolate, the Go spawn and the C constructor),
// and no other. RestrictNamespaces=yes refused them all, and every worker
// that asks for its namespaces failed to start under the unit.
func TestUnitNamespaces(t *testing.T) {
	kinds := map[string]string{"USER": "user", "NET": "net", "NS": "mnt", "IPC": "ipc", "UTS": "uts", "PID": "pid", "CGROUP": "cgroup"}
	srcs, err := filepath.Glob(filepath.Join("..", "blocks", "sandbox", "isolate", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	need := map[string]bool{}
	for _, src := range srcs {
		if strings.HasSuffix(src, "_test.go") {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`CLONE_NEW([A-Z]+)`).FindAllStringSubmatch(string(b), -1) {
			kind, ok := kinds[m[1]]
			if !ok {
				t.Fatalf("%s: CLONE_NEW%s, a namespace this test does not know", src, m[1])
			}
			need[kind] = true
		}
	}
	if !need["user"] || !need["net"] {
		t.Fatalf("the workers' namespaces were not found in %v: %v", srcs, need)
	}
	unit, err := os.ReadFile("flowctl.service")
	if err != nil {
		t.Fatal(err)
	}
	values := regexp.MustCompile(`(?m)^RestrictNamespaces=(.*)$`).FindAllStringSubmatch(string(unit), -1)
	if len(values) != 1 {
		t.Fatalf("flowctl.service sets RestrictNamespaces %d times, want once", len(values))
	}
	allowed := restrictNamespaces(t, strings.TrimSpace(values[0][1]))
	for _, kind := range kinds {
		if need[kind] != allowed[kind] {
			t.Errorf("RestrictNamespaces=%s: %s namespaces allowed %v, the workers make them %v", values[0][1], kind, allowed[kind], need[kind])
		}
	}
}

// restrictNamespaces is the set of namespace types a RestrictNamespaces=
// value allows (systemd.exec(5)): a boolean (yes allows none, no all), a
// list of the types allowed, or ~ and a list of the types refused.
func restrictNamespaces(t *testing.T, v string) map[string]bool {
	all := []string{"cgroup", "ipc", "net", "mnt", "pid", "user", "uts"}
	set := func(allow bool) map[string]bool {
		m := map[string]bool{}
		for _, k := range all {
			m[k] = allow
		}
		return m
	}
	switch strings.ToLower(v) {
	case "yes", "true", "on", "1":
		return set(false)
	case "no", "false", "off", "0", "":
		return set(true)
	}
	invert := strings.HasPrefix(v, "~")
	m := set(invert)
	for _, k := range strings.Fields(strings.TrimPrefix(v, "~")) {
		if _, ok := m[k]; !ok {
			t.Fatalf("RestrictNamespaces=%s: unknown namespace type %q", v, k)
		}
		m[k] = !invert
	}
	return m
}

// TestDockerRunMountsDirectories: the documented docker run commands (in
// docs/operations.md and the Dockerfile's comment) mount a directory at
// the directory of the image's --tokens-file, not the file itself, so
// that a rotation by rename reaches the container; the file mounted alone
// stayed the old one.
func TestDockerRunMountsDirectories(t *testing.T) {
	dockerfile, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^CMD (\[.*\])$`).FindSubmatch(dockerfile)
	if m == nil {
		t.Fatal("Dockerfile: no CMD")
	}
	var cmd []string
	if err := json.Unmarshal(m[1], &cmd); err != nil {
		t.Fatal(err)
	}
	tokens := ""
	for i, a := range cmd {
		if a == "--tokens-file" && i+1 < len(cmd) {
			tokens = cmd[i+1]
		}
	}
	if tokens == "" {
		t.Fatalf("the Dockerfile's CMD has no --tokens-file: %v", cmd)
	}
	ops, err := os.ReadFile(filepath.Join("..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	runs := append(dockerRuns(string(ops)), dockerRuns(string(dockerfile))...)
	if len(runs) < 2 {
		t.Fatalf("found %d docker run commands in docs/operations.md and the Dockerfile, want both", len(runs))
	}
	for _, run := range runs {
		mounted := false
		for i, a := range run {
			if a != "-v" || i+1 >= len(run) {
				continue
			}
			parts := strings.Split(strings.Trim(run[i+1], `"'`), ":")
			if len(parts) < 2 {
				continue
			}
			switch parts[1] {
			case tokens:
				t.Errorf("docker run mounts the tokens file %s alone: a rotation by rename never reaches the container\n%s", tokens, strings.Join(run, " "))
			case filepath.Dir(tokens):
				mounted = true
			}
		}
		if !mounted {
			t.Errorf("docker run mounts no directory at %s, where --tokens-file reads %s\n%s", filepath.Dir(tokens), tokens, strings.Join(run, " "))
		}
	}
}

// dockerRuns are the docker run commands of a text, each with its
// continuation lines (and a comment's #), as fields.
func dockerRuns(text string) [][]string {
	var out [][]string
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(lines[i]), "#"))
		if !strings.HasPrefix(line, "docker run ") {
			continue
		}
		cmd := line
		for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
			i++
			cmd = strings.TrimSuffix(cmd, "\\") + " " + strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(lines[i]), "#"))
		}
		out = append(out, strings.Fields(cmd))
	}
	return out
}

// TestImage builds deploy/Dockerfile and runs the image: flowctl runs,
// as a user that is not root, with python3 3.11 or newer. Only where a
// Docker daemon answers (docker info); otherwise skipped, in CI too.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	docker, err := exec.LookPath("docker")
	if err != nil || exec.Command(docker, "info").Run() != nil {
		t.Skip("no Docker daemon")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	tag := "flowctl-deploy-test:" + time.Now().Format("20060102150405")
	build := exec.CommandContext(ctx, docker, "build", "-f", "deploy/Dockerfile", "-t", tag, ".")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("docker build: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command(docker, "rmi", "-f", tag).Run() })
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.CommandContext(ctx, docker, append([]string{"run", "--rm", "--entrypoint", args[0], tag}, args[1:]...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("docker run %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if out := run("flowctl", "version"); !strings.HasPrefix(out, "flowctl ") {
		t.Errorf("flowctl version in the image: %q", out)
	}
	if out := run("id", "-u"); out == "0" {
		t.Errorf("the image runs as root")
	}
	if out := run("python3", "-c", "import sys; print(sys.version_info >= (3, 11))"); out != "True" {
		t.Errorf("python3 in the image is older than 3.11: %q", out)
	}
}
