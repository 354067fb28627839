package blocks

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/dustin/go-humanize"
)

// Ledger counts what one run spends on model calls and holds its budget
// (a flow's max_tokens and max_cost_usd; apply's --max-tokens and
// --max-cost). Before each request a model block reserves the prompt's
// tokens, counted locally, and their cost; a request that would take the
// run past a limit is not sent (docs/llm.md, "Cost and budgets"). Calls
// in flight hold their reservation, so that parallel steps cannot pass
// the budget together. A nil *Ledger counts nothing and allows all.
type Ledger struct {
	maxTokens int
	maxCost   float64

	mu       sync.Mutex
	spent    Usage
	held     int     // tokens reserved by requests in flight
	heldCost float64 // their cost
	said     map[string]bool
}

// NewLedger returns the ledger of a run whose limits are maxTokens and
// maxCostUSD (0: none) and which has spent spent already (the steps a
// resumed run keeps).
func NewLedger(maxTokens int, maxCostUSD float64, spent Usage) *Ledger {
	return &Ledger{maxTokens: maxTokens, maxCost: maxCostUSD, spent: spent, said: map[string]bool{}}
}

// Spent is what the run has spent so far.
func (l *Ledger) Spent() Usage {
	if l == nil {
		return Usage{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.spent
}

// BudgetError is the error of a request that a run's budget did not let
// through. It is final: trying the step again cannot help, a larger
// budget can (apply --resume with --max-tokens or --max-cost).
type BudgetError struct{ msg string }

func (e *BudgetError) Error() string { return e.msg }

// Unwrap makes the error final.
func (e *BudgetError) Unwrap() error { return ErrFinal }

// Hold is a request's reservation under the budget, until it settles.
type Hold struct {
	l      *Ledger
	tokens int
	cost   float64
}

// Limits reports whether the ledger holds a budget: without one, Reserve
// never refuses, and a caller need not count a prompt's tokens for it.
func (l *Ledger) Limits() bool { return l != nil && (l.maxTokens > 0 || l.maxCost > 0) }

// Reserve reserves, for a request of model about to be sent, the prompt's
// tokens and their cost (priced: whether the model has a price; cost is
// 0 when it has none). It returns a *BudgetError, sending nothing, when
// the run's spending with what calls in flight hold and this prompt would
// pass a limit, or when a cost limit is set and the model has no price.
func (l *Ledger) Reserve(model string, tokens int, cost float64, priced bool) (*Hold, error) {
	if l == nil {
		return nil, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.maxCost > 0 && !priced {
		return nil, &BudgetError{fmt.Sprintf("the run's budget of %s cannot be kept: model %q has no price (give it one in its provider's prices, or in the %s file for the environment's provider)", usd(l.maxCost), model, EnvPrices)}
	}
	if l.maxTokens > 0 && l.spent.TotalTokens+l.held+tokens > l.maxTokens {
		return nil, &BudgetError{fmt.Sprintf("budget of %s reached after %s (%s)", tokenCount(l.maxTokens), calls(l.spent.Calls), tokenCount(l.spent.TotalTokens))}
	}
	if l.maxCost > 0 && l.spentCost()+l.heldCost+cost > l.maxCost {
		return nil, &BudgetError{fmt.Sprintf("budget of %s reached after %s (%s)", usd(l.maxCost), calls(l.spent.Calls), spentUSD(l.spentCost()))}
	}
	l.held += tokens
	l.heldCost += cost
	return &Hold{l: l, tokens: tokens, cost: cost}, nil
}

// Settle ends the reservation and counts what the request spent (the
// zero Usage for one that got no reply).
func (h *Hold) Settle(u Usage) {
	if h == nil {
		return
	}
	l := h.l
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held -= h.tokens
	l.heldCost -= h.cost
	l.spent.Add(u)
}

// Count counts what a request spent without a reservation (a ledger
// without a Reserve before it, as for a reply that reached the model
// anyway).
func (l *Ledger) Count(u Usage) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.spent.Add(u)
}

// FirstUnpriced reports whether this is the run's first call of a model
// (of a provider) without a price, which the run says once.
func (l *Ledger) FirstUnpriced(provider, model string) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	key := provider + "\x00" + model
	if l.said[key] {
		return false
	}
	l.said[key] = true
	return true
}

func (l *Ledger) spentCost() float64 {
	if l.spent.CostUSD == nil {
		return 0
	}
	return *l.spent.CostUSD
}

// EnvPrices names the file of model prices for the environment's
// provider: a JSON object of models to {"input": USD, "output": USD} per
// million tokens, as a provider block's prices.
const EnvPrices = "FLOWCTL_PRICES"

func tokenCount(n int) string {
	if n == 1 {
		return "1 token"
	}
	return humanize.Comma(int64(n)) + " tokens"
}

func calls(n int) string {
	if n == 1 {
		return "1 call"
	}
	return humanize.Comma(int64(n)) + " calls"
}

// usd formats a budget: dollars with at least two decimals ($0.50,
// $0.125).
func usd(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	whole, frac, _ := strings.Cut(s, ".")
	for len(frac) < 2 {
		frac += "0"
	}
	return "$" + whole + "." + frac
}

// spentUSD formats what was spent: dollars to four decimals ($0.4987).
func spentUSD(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 4, 64) }
