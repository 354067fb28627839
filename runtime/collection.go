package runtime

import (
	"context"
	"fmt"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
)

// collection opens the collection a vector step names in the run's
// state; nil for other steps.
func (r *run) collection(ctx context.Context, s *compiler.Step) (blocks.Collection, error) {
	c := s.Collection
	if c == nil {
		return nil, nil
	}
	if r.opts.Store == nil {
		return nil, fmt.Errorf("collection %q is kept by the state, and this run has none", c.Name)
	}
	return r.opts.Store.Collection(ctx, blocks.CollectionSpec{Name: c.Name, Dimensions: c.Dimensions, Distance: c.Distance})
}
