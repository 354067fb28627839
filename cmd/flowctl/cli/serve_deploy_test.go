package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDeployCommands: the flowctl command lines of deploy/ (the systemd
// units' ExecStart, the Dockerfile's CMD) name commands and flags that
// exist and parse, so that an installed unit or image does not fail on
// a renamed flag.
func TestDeployCommands(t *testing.T) {
	deploy := filepath.Join("..", "..", "..", "deploy")
	var lines [][]string
	for _, unit := range []string{"flowctl.service", "flowctl-prune.service"} {
		src, err := os.ReadFile(filepath.Join(deploy, unit))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?m)^ExecStart=/usr/local/bin/flowctl (.*)$`).FindSubmatch(src)
		if m == nil {
			t.Fatalf("%s: no ExecStart of flowctl", unit)
		}
		lines = append(lines, strings.Fields(string(m[1]))) // no quoting in these lines
	}
	src, err := os.ReadFile(filepath.Join(deploy, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^CMD (\[.*\])$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("Dockerfile: no CMD")
	}
	var cmdArgs []string
	if err := json.Unmarshal(m[1], &cmdArgs); err != nil {
		t.Fatalf("Dockerfile's CMD: %v", err)
	}
	lines = append(lines, cmdArgs)
	for _, args := range lines {
		root := newRootCommand(streams{})
		cmd, rest, err := root.Find(args)
		if err != nil || cmd == root {
			t.Errorf("flowctl %s: no such command (%v)", strings.Join(args, " "), err)
			continue
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("flowctl %s: %v", strings.Join(args, " "), err)
		}
	}
}
