// Package deploy_test checks the files of deploy/: the systemd units with
// systemd-analyze verify, and the container image, built and run where a
// Docker daemon answers.
package deploy_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
