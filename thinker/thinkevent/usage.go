package thinkevent

import (
	"errors"

	"github.com/flowctl/flowctl/blocks"
)

// StageUsage is what the requests of one stage used.
type StageUsage struct {
	Stage            string `json:"stage"`
	Calls            int    `json:"calls"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
}

// Usage is what a command's model requests used, stage by stage in the
// order the stages first asked.
type Usage struct {
	Calls            int          `json:"calls"`
	PromptTokens     int          `json:"prompt_tokens"`
	CompletionTokens int          `json:"completion_tokens"`
	Stages           []StageUsage `json:"stages"`
}

// JSON is the usage as flowctl's JSON shows it (the usage event, serve's
// explain): its stages a list, empty when none.
func (u Usage) JSON() Usage {
	if u.Stages == nil {
		u.Stages = []StageUsage{}
	}
	return u
}

// Total is the tokens of every request.
func (u Usage) Total() blocks.Usage {
	return blocks.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.PromptTokens + u.CompletionTokens}
}

// CallsOf returns how many requests stage sent.
func (u Usage) CallsOf(stage string) int {
	for _, s := range u.Stages {
		if s.Stage == stage {
			return s.Calls
		}
	}
	return 0
}

// ErrBudget is wrapped by the Error of a run stopped by
// thinker.Options.MaxTokens: the next request would have gone over it.
var ErrBudget = errors.New("the token budget is spent")
