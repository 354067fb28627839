package thinker

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/index"
)

// searchLimit is how many hits of each search are tried for
// compatibility.
const searchLimit = 5

// Relevance thresholds: a hit serves a required block only when it is
// about the same thing — its words cover this share of the required
// block's name and description (index.Relevance), or, with embeddings,
// its vector is this close to the query's.
const (
	minRelevance       = 0.3
	minVectorRelevance = 0.6
)

// planned is a required block and the block that serves it: found in the
// registry, or created.
type planned struct {
	spec    BlockSpec
	block   *blocks.Block // nil until found or created
	created bool
}

// search looks each required block up in the registry (docs/design.md, "The thinker"): full text
// over names, descriptions, use_when and tags, plus embeddings when the
// options give an embedder. A hit serves the block when it is relevant to
// the required block's purpose (relevant) and its inputs and outputs are
// compatible with the required ones — types alone are not enough; a
// block without such a hit is missing and will be created. Embeddings that fail leave the
// search to full text, and the stage's event says so.
func (r *run) search(ctx context.Context, specs []BlockSpec) ([]*planned, error) {
	ix := index.New(r.reg.All())
	started := StageStarted{Time: time.Now(), Stage: StageSearch}
	if r.opts.Embedder != nil && r.opts.EmbeddingsModel != "" {
		err := ix.UseEmbeddings(ctx, r.opts.Embedder, r.opts.VectorCache, r.opts.EmbeddingsModel)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, stageErr(StageSearch, err, "cancelled")
		case err != nil:
			started.Note = "searching by text alone; embeddings are not available: " + err.Error()
		default:
			started.Embeddings = true
		}
	}
	r.emit(started)
	var plan []*planned
	for _, spec := range specs {
		p := &planned{spec: spec}
		plan = append(plan, p)
		hits, err := ix.SearchContext(ctx, searchQuery(spec), searchLimit)
		if err != nil && ctx.Err() != nil {
			return nil, stageErr(StageSearch, err, "cancelled")
		}
		ins, outs := ports(spec.Inputs), ports(spec.Outputs)
		var candidates []Candidate
		for _, h := range hits {
			rel, reason, relevant := relevant(ix, h, spec)
			ok, why := index.Compatible(h.Block, ins, outs)
			if ok && relevant {
				p.block = h.Block
				r.emit(SearchFound{Time: time.Now(), Block: spec.ID, Found: h.Block.Name, Runtime: h.Block.Runtime, Score: h.Score,
					Relevance: rel, Reason: reason})
				break
			}
			if !relevant {
				why = reason
			}
			candidates = append(candidates, Candidate{Name: h.Block.Name, Score: h.Score, Why: why})
		}
		if p.block == nil {
			r.emit(SearchMissing{Time: time.Now(), Block: spec.ID, Candidates: candidates})
		}
	}
	return plan, nil
}

// relevant says how relevant a hit is to a required block's purpose,
// why, and whether that is enough to serve it.
func relevant(ix *index.Index, h index.Hit, spec BlockSpec) (float64, string, bool) {
	purpose := strings.ReplaceAll(spec.ID, "_", " ") + ". " + spec.Description
	rel, shared := ix.Relevance(h.Block, purpose)
	var reason string
	if len(shared) == 0 {
		reason = "its name, description and tags share no word with the purpose"
	} else {
		reason = "its name, description and tags share " + strings.Join(shared, ", ") + " with the purpose"
	}
	reason += fmt.Sprintf(" (relevance %.2f", rel)
	ok := rel >= minRelevance
	if h.Vector > 0 {
		reason += fmt.Sprintf(", embedding similarity %.2f", h.Vector)
		ok = ok || h.Vector >= minVectorRelevance
	}
	reason += ")"
	if !ok {
		reason = fmt.Sprintf("not about what %s does: %s; below %.2f", spec.ID, reason, minRelevance)
	}
	return rel, reason, ok
}

// searchQuery is what a required block is searched by: its id in words,
// its description and the names of its fields.
func searchQuery(s BlockSpec) string {
	parts := []string{strings.ReplaceAll(s.ID, "_", " "), s.Description}
	for _, f := range append(append([]FieldSpec{}, s.Inputs...), s.Outputs...) {
		parts = append(parts, strings.ReplaceAll(f.Name, "_", " "))
	}
	return strings.Join(parts, " ")
}

func ports(fields []FieldSpec) []index.Port {
	out := make([]index.Port, len(fields))
	for i, f := range fields {
		out[i] = index.Port{Name: f.Name, Type: f.Parsed}
	}
	return out
}
