package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// The executors of the contract cases (contract_test.go): the value and
// sleep built-ins, counted, and the Go fakes that blocks with runtime "js"
// run, by block name.

type ctFn func(ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error)

// ctEnv provides executors that count their calls: the value and sleep
// built-ins, and the fakes of js blocks (as "js:NAME").
type ctEnv struct {
	mu        sync.Mutex
	calls     map[string]int
	perName   map[string]int // flaky's calls, by its name input, over the whole case
	released  chan struct{}  // closed by release: blocker returns
	holding   chan struct{}  // closed when blocker first holds a call
	holdOnce  sync.Once
	badDone   chan struct{} // closed when work has failed an item, in this apply
	badOnce   *sync.Once
	listDone  chan struct{} // closed when a step named list has finished, in this apply
	listOnce  *sync.Once
	eventText []string // every event, as JSON, for the never checks
}

func newCtEnv() *ctEnv {
	e := &ctEnv{calls: map[string]int{}, perName: map[string]int{}, released: make(chan struct{}), holding: make(chan struct{})}
	e.reset()
	return e
}

func (e *ctEnv) count(k string) {
	e.mu.Lock()
	e.calls[k]++
	e.mu.Unlock()
}

// counts renders the calls of this apply: "double=4 sleep=2 value=5".
func (e *ctEnv) counts() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, k := range lang.SortedKeys(e.calls) {
		out = append(out, fmt.Sprintf("%s=%d", k, e.calls[k]))
	}
	return strings.Join(out, " ")
}

// reset starts a new apply.
func (e *ctEnv) reset() {
	e.mu.Lock()
	e.calls = map[string]int{}
	e.badDone, e.badOnce = make(chan struct{}), &sync.Once{}
	e.listDone, e.listOnce = make(chan struct{}), &sync.Once{}
	e.mu.Unlock()
}

func (e *ctEnv) release() { close(e.released) }

// waitHolding waits until the blocker holds a call (or a long time).
func (e *ctEnv) waitHolding() { ctWait(context.Background(), e.holding) }

type ctCounted struct {
	env   *ctEnv
	name  string
	inner blocks.Executor
}

func (c ctCounted) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	c.env.count(c.name)
	return c.inner.Execute(ctx, call)
}

type ctJSExec struct{ env *ctEnv }

func (j ctJSExec) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	name := call.Block.Name
	j.env.count(name)
	fn := ctFakes[name]
	if fn == nil {
		fn = ctPassThrough
	}
	out, err := fn(j.env, ctx, call.Inputs)
	if err != nil {
		return nil, err
	}
	return &blocks.Result{Outputs: out}, nil
}

func (e *ctEnv) executors() *blocks.Executors {
	builtins := map[string]blocks.Executor{}
	for name, ex := range blocks.BuiltinExecutors() {
		switch name {
		case "value", "sleep":
			builtins[name] = ctCounted{env: e, name: name, inner: ex}
		default:
			builtins[name] = ex
		}
	}
	return &blocks.Executors{Builtins: builtins, Runtimes: map[string]blocks.Executor{"js": ctJSExec{e}}}
}

// ctPassThrough is what a js block without a fake of its own does: it
// returns each of its inputs as the output of the same name.
func ctPassThrough(_ *ctEnv, _ context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
	return in, nil
}

// ctFakes are the Go functions that js blocks run, by block name; the
// others pass their inputs through (ctPassThrough).
var ctFakes = map[string]func(e *ctEnv, ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error){
	// work upper-cases its item; it fails an item that contains "bad",
	// and holds the others until one has failed, so that they are still
	// running when it does.
	"work": func(e *ctEnv, ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		item := in["item"].AsString()
		e.mu.Lock()
		done, once := e.badDone, e.badOnce
		e.mu.Unlock()
		if strings.Contains(item, "bad") {
			once.Do(func() { close(done) })
			return nil, fmt.Errorf("cannot process %s", item)
		}
		ctWait(ctx, done)
		return map[string]cty.Value{"out": cty.StringVal(strings.ToUpper(item))}, nil
	},
	// echo returns its item.
	"echo": func(_ *ctEnv, _ context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		return map[string]cty.Value{"out": in["item"]}, nil
	},
	// flaky fails its first fail_times calls for each name (over the
	// whole case); "badshape" returns an output of the wrong type.
	"flaky": func(e *ctEnv, _ context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		name := in["name"].AsString()
		failTimes, _ := in["fail_times"].AsBigFloat().Int64()
		e.mu.Lock()
		e.perName[name]++
		n := e.perName[name]
		e.mu.Unlock()
		if name == "badshape" {
			return map[string]cty.Value{"ok": cty.StringVal("maybe")}, nil
		}
		if int64(n) <= failTimes {
			return nil, fmt.Errorf("boom %s attempt %d", name, n)
		}
		return map[string]cty.Value{"ok": cty.True}, nil
	},
	// hang waits for its context.
	"hang": func(_ *ctEnv, ctx context.Context, _ map[string]cty.Value) (map[string]cty.Value, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Second):
			return map[string]cty.Value{"ok": cty.True}, nil
		}
	},
	// double doubles x.
	"double": func(_ *ctEnv, _ context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		return map[string]cty.Value{"y": in["x"].Multiply(cty.NumberIntVal(2))}, nil
	},
	// maybe fails when asked to.
	"maybe": func(_ *ctEnv, _ context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		if in["fail"].True() {
			return nil, errors.New("asked to fail")
		}
		return map[string]cty.Value{"ok": cty.True}, nil
	},
	// slow returns its v once a step named list has finished.
	"slow": func(e *ctEnv, ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		e.mu.Lock()
		done := e.listDone
		e.mu.Unlock()
		ctWait(ctx, done)
		return map[string]cty.Value{"v": in["v"]}, nil
	},
	// blocker holds its call until release, or until its context ends.
	"blocker": func(e *ctEnv, ctx context.Context, in map[string]cty.Value) (map[string]cty.Value, error) {
		e.holdOnce.Do(func() { close(e.holding) })
		select {
		case <-e.released:
			return map[string]cty.Value{"name": in["name"]}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Second):
			return nil, errors.New("never cancelled")
		}
	},
}
