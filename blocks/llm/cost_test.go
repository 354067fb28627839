package llm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// pricedCall is a call to provider "p" at s whose model test-model costs
// 1,000 USD per million prompt tokens and 10,000 per million completion
// tokens: a reply of ok (10 and 5 tokens) costs $0.06.
func pricedCall(t *testing.T, s *fakeServer, ledger *blocks.Ledger) *blocks.Call {
	call := builtinCall(t, "hello")
	call.Provider = &blocks.Provider{Name: "p", BaseURL: s.url(), APIKey: "provider-key-0123456789",
		Prices: map[string]lang.Price{"test-model": {Input: 1000, Output: 10000}}}
	call.Inputs["model"] = cty.StringVal("test-model")
	call.Ledger = ledger
	return call
}

func TestCostOfACall(t *testing.T) {
	s := newServer(t, ok("hi"))
	ledger := blocks.NewLedger(0, 0, blocks.Usage{})
	res, err := NewExecutor(Config{}).Execute(testCtx(t), pricedCall(t, s, ledger))
	if err != nil {
		t.Fatal(err)
	}
	u := res.Usage
	if u.CostUSD == nil || *u.CostUSD != 0.06 || u.Calls != 1 || u.Unpriced != 0 || u.TotalTokens != 15 {
		t.Fatalf("usage %+v (cost %v); want $0.06 for 1 call of 15 tokens", u, u.CostUSD)
	}
	if spent := ledger.Spent(); spent.CostUSD == nil || *spent.CostUSD != 0.06 || spent.Calls != 1 {
		t.Errorf("the ledger spent %+v", spent)
	}
}

// TestUnpricedSaidOnce: a model without a price has no cost, and where
// its provider prices other models the run (its ledger) says so once,
// however many calls it makes.
func TestUnpricedSaidOnce(t *testing.T) {
	s := newServer(t, ok("hi"))
	ledger := blocks.NewLedger(0, 0, blocks.Usage{})
	var mu sync.Mutex
	var said []string
	ctx := blocks.WithNotices(testCtx(t), func(n blocks.Notice) {
		if n.Kind == blocks.NoticePrice {
			mu.Lock()
			said = append(said, n.Message)
			mu.Unlock()
		}
	})
	cfg := testConfig(s)
	cfg.Prices = map[string]lang.Price{"other-model": {Input: 1, Output: 1}}
	e := NewExecutor(cfg)
	for range 3 {
		call := builtinCall(t, "hello")
		call.Ledger = ledger
		res, err := e.Execute(ctx, call)
		if err != nil {
			t.Fatal(err)
		}
		if res.Usage.CostUSD != nil || res.Usage.Unpriced != 1 {
			t.Fatalf("usage %+v: want no cost and 1 unpriced call", res.Usage)
		}
	}
	want := `model "test-model" has no price in the FLOWCTL_PRICES file: its calls have no cost`
	if len(said) != 1 || said[0] != want {
		t.Errorf("notices %q; want once %q", said, want)
	}
	// Without any prices, cost is not counted, and nothing is said.
	said = nil
	call := builtinCall(t, "hello")
	call.Ledger = blocks.NewLedger(0, 0, blocks.Usage{})
	if _, err := NewExecutor(testConfig(s)).Execute(ctx, call); err != nil || len(said) != 0 {
		t.Errorf("without prices: %v, notices %q", err, said)
	}
}

// TestBudgetStopsBeforeTheRequest: no request is sent that would take
// the run past its budget, in dollars or in tokens; the error is final
// and says what was spent.
func TestBudgetStopsBeforeTheRequest(t *testing.T) {
	tests := []struct {
		name      string
		maxTokens int
		maxCost   float64
		sent      int
		err       string
	}{
		{"cost", 0, 0.10, 2, "budget of $0.10 reached after 2 calls ($0.1200)"},
		{"tokens", 20, 0, 1, "budget of 20 tokens reached after 1 call (15 tokens)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, ok("hi"))
			ledger := blocks.NewLedger(tt.maxTokens, tt.maxCost, blocks.Usage{})
			e := NewExecutor(Config{})
			var err error
			for range 4 {
				if _, err = e.Execute(testCtx(t), pricedCall(t, s, ledger)); err != nil {
					break
				}
			}
			if err == nil || err.Error() != tt.err {
				t.Fatalf("error %v; want %q", err, tt.err)
			}
			if !errors.Is(err, blocks.ErrFinal) {
				t.Error("a budget error is not final: the step would be tried again")
			}
			if n := len(s.recorded()); n != tt.sent {
				t.Errorf("the server got %d requests; want %d", n, tt.sent)
			}
		})
	}
}

// TestCostBudgetNeedsAPrice: a cost budget cannot be kept for a model
// without a price: nothing is sent.
func TestCostBudgetNeedsAPrice(t *testing.T) {
	s := newServer(t, ok("hi"))
	call := builtinCall(t, "hello")
	call.Ledger = blocks.NewLedger(0, 1, blocks.Usage{})
	_, err := NewExecutor(testConfig(s)).Execute(testCtx(t), call)
	if err == nil || !strings.Contains(err.Error(), `the run's budget of $1.00 cannot be kept: model "test-model" has no price`) {
		t.Fatalf("error %v", err)
	}
	if n := len(s.recorded()); n != 0 {
		t.Errorf("the server got %d requests", n)
	}
}

// TestResumedLedger: a ledger that starts from what a run spent before
// (a resumed run) counts it against the budget.
func TestResumedLedger(t *testing.T) {
	s := newServer(t, ok("hi"))
	before := 0.095
	ledger := blocks.NewLedger(0, 0.10, blocks.Usage{Calls: 3, CostUSD: &before})
	_, err := NewExecutor(Config{}).Execute(testCtx(t), pricedCall(t, s, ledger))
	if err == nil || err.Error() != "budget of $0.10 reached after 3 calls ($0.0950)" {
		t.Fatalf("error %v", err)
	}
	larger := blocks.NewLedger(0, 0.50, blocks.Usage{Calls: 3, CostUSD: &before})
	if _, err := NewExecutor(Config{}).Execute(testCtx(t), pricedCall(t, s, larger)); err != nil {
		t.Fatalf("with a larger budget: %v", err)
	}
}

func TestReadPrices(t *testing.T) {
	dir := t.TempDir()
	write := func(src string) string {
		p := filepath.Join(dir, "prices.json")
		if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	got, err := ReadPrices(write(`{"gpt-4o-mini": {"input": 0.15, "output": 0.6}}`))
	if err != nil || got["gpt-4o-mini"] != (lang.Price{Input: 0.15, Output: 0.6}) {
		t.Fatalf("prices %v, %v", got, err)
	}
	for src, want := range map[string]string{
		`[1]`:                               "is not a JSON object of models",
		`{"m": {"input": 1}}`:               `the price of model "m" needs both input and output`,
		`{"m": {"input": -1, "output": 1}}`: `the input price of model "m" must be a number, 0 or more`,
		`{"m": {"input": 1, "output": 1, "cached": 1}}`: `the price of model "m" has "cached"`,
	} {
		if _, err := ReadPrices(write(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v; want %q", src, err, want)
		}
	}
	if _, err := ReadPrices(filepath.Join(dir, "none.json")); err == nil || !strings.HasPrefix(err.Error(), "FLOWCTL_PRICES: ") {
		t.Errorf("a missing file: %v", err)
	}
	cfg, err := ConfigFromEnv(func(k string) (string, bool) {
		if k == "FLOWCTL_PRICES" {
			return write(`{"m": {"input": 1, "output": 2}}`), true
		}
		return "", false
	})
	if err != nil || cfg.Prices["m"] != (lang.Price{Input: 1, Output: 2}) {
		t.Errorf("ConfigFromEnv: %v, %v", cfg.Prices, err)
	}
}

// TestEmbedCostAndBudget: an embed step's requests are priced at its
// model's price and counted in the run's ledger; a batch that would pass
// the budget is not sent.
func TestEmbedCostAndBudget(t *testing.T) {
	srv := newEmbedServer(t)
	cfg := srv.config()
	cfg.EmbeddingsModel = "emb"
	cfg.Prices = map[string]lang.Price{"emb": {Input: 1000}}
	ex := NewExecutor(cfg)
	ledger := blocks.NewLedger(0, 0, blocks.Usage{})
	call := embedCall(t, map[string]cty.Value{"texts": stringList("a b c", "hello"), "batch_size": cty.NumberIntVal(1)})
	call.Ledger = ledger
	res, err := ex.Execute(testCtx(t), call)
	if err != nil {
		t.Fatal(err)
	}
	u := res.Usage
	if u.Calls != 2 || u.CostUSD == nil || *u.CostUSD != float64(u.PromptTokens)*1000/1e6 || ledger.Spent().Calls != 2 {
		t.Errorf("usage %+v (cost %v), ledger %+v", u, u.CostUSD, ledger.Spent())
	}
	before := len(srv.sent())
	call = embedCall(t, map[string]cty.Value{"texts": stringList("more words to embed here")})
	call.Ledger = blocks.NewLedger(1, 0, blocks.Usage{})
	if _, err := ex.Execute(testCtx(t), call); err == nil || !strings.Contains(err.Error(), "budget of 1 token reached after 0 calls (0 tokens)") {
		t.Errorf("a budget of 1 token: %v", err)
	}
	if len(srv.sent()) != before {
		t.Error("a request past the budget was sent")
	}
}
