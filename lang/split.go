package lang

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// A file of splitMinBytes or more is parsed in pieces of about
// pieceBytes. Pieces are small so that each piece's token slice stays a
// small allocation (under 32 KiB), which Go serves from its size
// classes, instead of a large object copied each time it grows.
const (
	splitMinBytes = 64 << 10
	pieceBytes    = 1 << 10
)

// parseSplit parses a large file in pieces cut between top-level blocks
// (starts, from checkNesting), on every processor, and joins them into
// the body a parse of the whole file gives. The HCL lexer collects a
// file's tokens in one slice, which for a file of ten thousand steps
// grows to tens of megabytes, copied each time it grows; pieces keep the
// slices small. It reports false — parse the file whole — for a small
// file, and when any piece has a diagnostic or a top-level attribute, so
// that problems are always reported as a whole parse reports them (a cut
// in the wrong place leaves a piece with something unclosed, an error).
func parseSplit(src []byte, filename string, starts []int) (*hcl.File, hcl.Diagnostics, bool) {
	if len(src) < splitMinBytes || len(starts) < 2 {
		return nil, nil, false
	}
	// Cut at the first item start past each pieceBytes.
	cuts := []int{0}
	for _, s := range starts {
		if s-cuts[len(cuts)-1] >= pieceBytes {
			cuts = append(cuts, s)
		}
	}
	cuts = append(cuts, len(src))
	n := len(cuts) - 1
	if n < 2 {
		return nil, nil, false
	}
	files := make([]*hcl.File, n)
	diags := make([]hcl.Diagnostics, n)
	pos := make([]hcl.Pos, n)
	line := 1
	for i := range n {
		pos[i] = hcl.Pos{Line: line, Column: 1, Byte: cuts[i]}
		line += bytes.Count(src[cuts[i]:cuts[i+1]], []byte{'\n'})
	}
	onEveryProcessor(n, func(i int) {
		files[i], diags[i] = hclsyntax.ParseConfig(src[cuts[i]:cuts[i+1]], filename, pos[i])
	})
	for i := range n {
		body, ok := files[i].Body.(*hclsyntax.Body)
		if len(diags[i]) > 0 || !ok || len(body.Attributes) > 0 {
			return nil, nil, false
		}
	}
	// The first piece's body becomes the file's, so that the file's
	// navigation (which names the block around a diagnostic) sees every
	// block.
	root := files[0].Body.(*hclsyntax.Body)
	last := files[n-1].Body.(*hclsyntax.Body)
	for _, f := range files[1:] {
		root.Blocks = append(root.Blocks, f.Body.(*hclsyntax.Body).Blocks...)
	}
	root.SrcRange = hcl.RangeBetween(root.SrcRange, last.SrcRange)
	root.EndRange = last.EndRange
	return &hcl.File{Body: root, Bytes: src, Nav: files[0].Nav}, nil, true
}

// onEveryProcessor calls fn(i) for every i in [0, n), on as many
// goroutines as there are processors, each taking the next i, and
// returns when all calls have.
func onEveryProcessor(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		})
	}
	wg.Wait()
}
