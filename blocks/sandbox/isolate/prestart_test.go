package isolate

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// TestPrestart: the workers Prestart starts serve the calls that come, as
// many as the pool's size and no more are started, and a closed pool
// starts none.
func TestPrestart(t *testing.T) {
	p := newPool(t, Options{Size: 2})
	p.Prestart(5)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		p.mu.Lock()
		ready := len(p.workers)
		p.mu.Unlock()
		if ready == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d workers ready after Prestart", ready)
		}
		time.Sleep(10 * time.Millisecond)
	}
	js := jsBlock(t, `function execute(input) { return { out: input.n * 2 } }`)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			res, err := p.Execute(context.Background(), callOf(js, float64(i)))
			if err != nil || !res.Outputs["out"].Equals(cty.NumberIntVal(int64(2*i))).True() {
				t.Errorf("call %d: %v, %v", i, res, err)
			}
		})
	}
	wg.Wait()
	if n := p.Spawned(); n != 2 {
		t.Errorf("%d workers started, want the 2 prestarted", n)
	}
	p.Prestart(5) // the pool is full: nothing more
	p.Close()
	p.Prestart(5)
	if n := p.Spawned(); n != 2 {
		t.Errorf("%d workers started after the pool was full and closed, want 2", n)
	}
}
