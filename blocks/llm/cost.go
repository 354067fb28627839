package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	openai "github.com/sashabaranov/go-openai"
)

// Cost and budgets (docs/llm.md, "Cost and budgets"): a call's cost is
// its tokens at its model's price, from the step's provider's prices or,
// for the environment's provider, the FLOWCTL_PRICES file. A model without
// a price has no cost, never a guessed one; where its provider prices
// other models, the run says so once.

// prices are the prices of call's provider: its provider block's, or the
// environment's (FLOWCTL_PRICES).
func (e *Executor) prices(call *blocks.Call) map[string]lang.Price {
	if call != nil && call.Provider != nil {
		return call.Provider.Prices
	}
	return e.cfg.Prices
}

// price is the price of model for call.
func (e *Executor) price(call *blocks.Call, model string) (lang.Price, bool) {
	p, ok := e.prices(call)[model]
	return p, ok
}

// costOf is what prompt and completion tokens cost at p, in USD.
func costOf(p lang.Price, prompt, completion int) float64 {
	return (float64(prompt)*p.Input + float64(completion)*p.Output) / 1e6
}

// reserve holds, under the run's budget, the tokens of r's prompt and
// their cost before r is sent.
func (e *Executor) reserve(call *blocks.Call, r *request, p lang.Price, priced bool) (*blocks.Hold, error) {
	if call == nil || call.Ledger == nil {
		return nil, nil
	}
	n, _ := promptTokens(r)
	var est float64
	if priced {
		est = costOf(p, n, 0)
	}
	return call.Ledger.Reserve(r.model, n, est, priced)
}

// spent is the usage of one reply: its tokens, one call, and its cost at
// the price of the model asked for, else of the model that answered.
// The first call of a run of a model without a price says so.
func (e *Executor) spent(ctx context.Context, call *blocks.Call, r *request, resp openai.ChatCompletionResponse, p lang.Price, priced bool) blocks.Usage {
	u := *usageOf(resp)
	u.Calls = 1
	if !priced && resp.Model != "" {
		p, priced = e.price(call, resp.Model)
	}
	if priced {
		c := costOf(p, u.PromptTokens, u.CompletionTokens)
		u.CostUSD = &c
		return u
	}
	u.Unpriced = 1
	// Said where prices are kept for other models: a missing one is
	// likely an oversight. Without any, cost is simply not counted.
	if call != nil && len(e.prices(call)) > 0 && call.Ledger.FirstUnpriced(providerName(call), r.model) {
		where := "the " + blocks.EnvPrices + " file"
		if call.Provider != nil {
			where = fmt.Sprintf("the prices of provider %q", call.Provider.Name)
		}
		blocks.Notify(ctx, blocks.Notice{Kind: blocks.NoticePrice,
			Message: fmt.Sprintf("model %q has no price in %s: its calls have no cost", r.model, where)})
	}
	return u
}

// ReadPrices reads a prices file (FLOWCTL_PRICES): a JSON object of
// models to {"input": USD, "output": USD} per million tokens.
func ReadPrices(path string) (map[string]lang.Price, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", blocks.EnvPrices, err)
	}
	var raw map[string]map[string]*float64
	if err := json.Unmarshal(src, &raw); err != nil {
		return nil, fmt.Errorf("%s: %s is not a JSON object of models to {\"input\": USD, \"output\": USD} per million tokens: %v", blocks.EnvPrices, path, err)
	}
	models := make([]string, 0, len(raw))
	for m := range raw {
		models = append(models, m)
	}
	sort.Strings(models)
	out := make(map[string]lang.Price, len(raw))
	for _, m := range models {
		var pr lang.Price
		for k, v := range raw[m] {
			if k != "input" && k != "output" {
				return nil, fmt.Errorf("%s: %s: the price of model %q has %q; a price has only input and output (USD per million tokens)", blocks.EnvPrices, path, m, k)
			}
			if v == nil || *v < 0 || math.IsInf(*v, 0) {
				return nil, fmt.Errorf("%s: %s: the %s price of model %q must be a number, 0 or more", blocks.EnvPrices, path, k, m)
			}
		}
		in, okIn := raw[m]["input"]
		outp, okOut := raw[m]["output"]
		if !okIn || !okOut {
			return nil, fmt.Errorf("%s: %s: the price of model %q needs both input and output (USD per million tokens)", blocks.EnvPrices, path, m)
		}
		pr.Input, pr.Output = *in, *outp
		out[m] = pr
	}
	return out, nil
}
