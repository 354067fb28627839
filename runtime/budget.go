package runtime

import (
	"encoding/json"

	"github.com/flowctl/flowctl/blocks"
)

// newLedger is the ledger of the run's model calls (blocks.Ledger): the
// one of the run that started it, else a new one under the budget of
// Options (apply --max-tokens, --max-cost), else of the flow
// (max_tokens, max_cost_usd). A resumed run starts from what its
// recorded steps spent, failed ones too: their calls were made.
func (r *run) newLedger() *blocks.Ledger {
	if r.opts.Ledger != nil {
		return r.opts.Ledger
	}
	maxTokens, maxCost := r.prog.Flow.MaxTokens, r.prog.Flow.MaxCostUSD
	if r.opts.MaxTokens > 0 {
		maxTokens = r.opts.MaxTokens
	}
	if r.opts.MaxCostUSD > 0 {
		maxCost = r.opts.MaxCostUSD
	}
	var spent blocks.Usage
	for _, m := range r.prior {
		for _, sr := range m {
			var u blocks.Usage
			if len(sr.Usage) > 0 && json.Unmarshal(sr.Usage, &u) == nil {
				spent.Add(u)
			}
		}
	}
	return blocks.NewLedger(maxTokens, maxCost, spent)
}
