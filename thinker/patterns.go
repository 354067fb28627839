package thinker

import (
	"context"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/index"
	"github.com/flowctl/flowctl/runtime/state"
)

// A Pattern is a flow that worked (accepted from think or a proposal),
// given by the caller from the state for think to reuse: its intent, its
// source, the blocks it uses, and how it has done since (runs and tests
// that passed and failed).
type Pattern struct {
	ID, Name, Intent, Source string
	Blocks                   []string
	Passed, Failed           int
}

// MinPatternRelevance is how close a pattern's intent must be to the
// intent, once ranked by its flow's record, for think to build on it: the
// registry search's relevance (the share of the intent's terms, weighted
// by rarity, that the pattern's intent has). "Count the words of
// todo.txt" against "Count the words of notes.txt" is 0.38; an intent
// sharing no term is 0.
const MinPatternRelevance = 0.3

// patternScore is a pattern's relevance ranked by its record: each
// failure of its flow since it was recorded weighs twice a success.
func patternScore(relevance float64, p Pattern) float64 {
	return relevance * float64(1+p.Passed) / float64(1+p.Passed+2*p.Failed)
}

// matchPattern finds the pattern closest to the intent by the registry's
// search: full text (BM25 over the patterns' intents, as the blocks' are
// searched), plus embeddings when the options give an embedder. Its
// relevance is the text's, or, when the intent's and the pattern's
// vectors are close (a cosine similarity of minVectorRelevance or more),
// the similarity scaled so that minVectorRelevance is
// MinPatternRelevance, whichever is higher; it is ranked down by the
// pattern's failures. nil when none is close enough or its blocks are
// not all in the registry. Embeddings that fail leave the search to full
// text.
func (r *run) matchPattern(ctx context.Context, intent string) (*Pattern, float64, float64) {
	if len(r.opts.Patterns) == 0 || r.base != nil {
		return nil, 0, 0
	}
	docs := make([]*blocks.Block, len(r.opts.Patterns))
	for i, p := range r.opts.Patterns {
		docs[i] = &blocks.Block{Name: p.Name, Description: p.Intent}
	}
	ix := index.New(docs)
	if r.opts.Embedder != nil && r.opts.EmbeddingsModel != "" {
		ix.UseEmbeddings(ctx, r.opts.Embedder, r.opts.VectorCache, r.opts.EmbeddingsModel)
	}
	hits, _ := ix.SearchContext(ctx, intent, len(docs))
	var best *Pattern
	bestScore, bestSim := 0.0, 0.0
	for _, h := range hits {
		rel, _ := ix.Relevance(h.Block, intent)
		if h.Vector >= minVectorRelevance {
			rel = max(rel, MinPatternRelevance*h.Vector/minVectorRelevance)
		}
		for i := range r.opts.Patterns {
			p := &r.opts.Patterns[i]
			if docs[i] != h.Block || !r.hasBlocks(p.Blocks) {
				continue
			}
			if s := patternScore(rel, *p); s > bestScore {
				best, bestScore, bestSim = p, s, h.Vector
			}
		}
	}
	if bestScore < MinPatternRelevance {
		return nil, bestScore, 0
	}
	return best, bestScore, bestSim
}

func (r *run) hasBlocks(names []string) bool {
	for _, n := range names {
		if r.reg.Lookup(n) == nil {
			return false
		}
	}
	return len(names) > 0
}

// patternPlan is the plan of a run based on a pattern: its blocks, found
// in the registry, each serving itself. Decompose is not asked.
func (r *run) patternPlan(p *Pattern) []*planned {
	var plan []*planned
	for _, n := range p.Blocks {
		b := r.reg.Lookup(n)
		plan = append(plan, &planned{spec: BlockSpec{ID: n, Description: b.Description, Runtime: b.Runtime}, block: b})
	}
	return plan
}

// example is the worked example wire is given when the run is based on a
// pattern.
func (r *run) example() any {
	if r.pattern == nil {
		return nil
	}
	return obj{{Key: "pattern", Value: r.pattern.Name}, {Key: "intent", Value: r.pattern.Intent}, {Key: "flow_source", Value: r.pattern.Source},
		{Key: "note", Value: "A flow that worked for a close intent: follow it, changing what the new intent needs."}}
}

// StatePatterns are the patterns recorded in st as the thinker takes them
// (Options.Patterns); none when they cannot be read.
func StatePatterns(st *state.Store) []Pattern {
	ps, err := st.Patterns()
	if err != nil {
		return nil
	}
	var out []Pattern
	for _, p := range ps {
		tp := Pattern{ID: p.ID, Name: p.Name, Intent: p.Intent, Source: p.Source,
			Passed: p.RunsOK + p.TestPasses, Failed: p.RunsFailed + p.TestFailures}
		for _, b := range p.Blocks {
			tp.Blocks = append(tp.Blocks, b.Name)
		}
		out = append(out, tp)
	}
	return out
}
