package thinker

import (
	"context"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/index"
)

// searchLimit is how many hits of each search are tried for
// compatibility.
const searchLimit = 5

// planned is a required block and the block that serves it: found in the
// registry, or created.
type planned struct {
	spec    BlockSpec
	block   *blocks.Block // nil until found or created
	created bool
}

// search looks each required block up in the registry (docs/design.md, "The thinker"): full text
// over names, descriptions, use_when and tags, plus embeddings when the
// options give an embedder. A hit serves the block when its inputs and
// outputs are compatible with the required ones; a block without such a
// hit is missing and will be created. Embeddings that fail leave the
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
			ok, why := index.Compatible(h.Block, ins, outs)
			if ok {
				p.block = h.Block
				r.emit(SearchFound{Time: time.Now(), Block: spec.ID, Found: h.Block.Name, Runtime: h.Block.Runtime, Score: h.Score})
				break
			}
			candidates = append(candidates, Candidate{Name: h.Block.Name, Score: h.Score, Why: why})
		}
		if p.block == nil {
			r.emit(SearchMissing{Time: time.Now(), Block: spec.ID, Candidates: candidates})
		}
	}
	return plan, nil
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
		out[i] = index.Port{Name: f.Name, Type: f.ty}
	}
	return out
}
