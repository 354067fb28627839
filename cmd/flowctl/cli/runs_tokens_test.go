package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestRunsShowTokens: runs show reports the tokens each llm step instance
// used (its TOKENS column) and the run's total.
func TestRunsShowTokens(t *testing.T) {
	thinkDir(t)
	newThinkServer(t, nil) // each completion reports 15 tokens
	os.WriteFile("ask.flow.hcl", []byte(`flow "ask" {}

step "topics" {
  use      = "llm"
  for_each = ["a", "b"]
  prompt   = "Name a topic starting with ${each.value}"
}

output "first" {
  value = step.topics[0].text
}
`), 0o644)
	code, out, errOut := runCLI(t, "apply", "--auto-approve", "--json", "ask.flow.hcl")
	if code != 0 {
		t.Fatalf("apply exited %d:\n%s%s", code, out, errOut)
	}
	id := regexp.MustCompile(`"run_id":"([^"]+)"`).FindStringSubmatch(out)[1]
	code, out, errOut = runCLI(t, "runs", "show", id)
	if code != 0 || !strings.Contains(out, "Tokens: 30 in all.") || !strings.Contains(out, "TOKENS") ||
		len(regexp.MustCompile(`topics\[[01]\]\s+ok\s+1\s+\S+\s+15`).FindAllString(out, -1)) != 2 {
		t.Errorf("runs show exited %d:\n%s%s", code, out, errOut)
	}
}
