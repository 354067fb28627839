package runtime

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

// cacheKeyer is implemented by executors whose results depend on more than
// their inputs (the file block: the file's content).
type cacheKeyer interface {
	CacheKey(call *blocks.Call) (string, error)
}

// cacheKey hashes what a result depends on: the block's definition, the
// input values, the step's declared outputs (docs/design.md, "State and
// cache"), and the versions of the tools an llm step may call.
func (r *run) cacheKey(s *compiler.Step, call *blocks.Call, exec blocks.Executor) (string, error) {
	var tools []string
	for _, t := range s.Tools {
		tools = append(tools, "tool "+t.Ref()+"="+t.Fingerprint)
	}
	return r.blockCacheKey(s.Block, call, exec, s.Step.Outputs, tools...)
}

// blockCacheKey is the cache key of a call of block b: its definition, the
// input values, the declared outputs (by name and type) and extra text.
func (r *run) blockCacheKey(b *blocks.Block, call *blocks.Call, exec blocks.Executor, outputs []*lang.Field, extra ...string) (string, error) {
	// Everything hashed is appended to one buffer, hashed at the end.
	buf := make([]byte, 0, 256)
	buf = append(buf, "flowctl-cache-1\x00"...)
	buf = append(buf, r.prog.Fingerprints[b]...)
	buf = append(buf, 0)
	// The inputs in the block's order, each as JSON after its type: the
	// declared type, or for an input of type any the value's own.
	for _, in := range b.Inputs {
		v := call.Inputs[in.Name]
		buf = append(buf, in.Name...)
		buf = append(buf, 0)
		if in.Type.Type == cty.DynamicPseudoType {
			buf = lang.AppendTypeString(buf, v.Type())
			buf = append(buf, 0)
		}
		var err error
		if buf, err = jsonval.Append(buf, v); err != nil {
			return "", err
		}
		buf = append(buf, 0)
	}
	for _, f := range outputs {
		buf = append(buf, 0)
		buf = append(buf, f.Name...)
		buf = append(buf, ':')
		buf = lang.AppendTypeString(buf, f.Type.Type)
	}
	for _, x := range extra {
		buf = append(buf, 0)
		buf = append(buf, x...)
	}
	if r.opts.CacheTag != "" {
		buf = append(buf, "\x00tag "...)
		buf = append(buf, r.opts.CacheTag...)
	}
	if ck, ok := exec.(cacheKeyer); ok {
		extra, err := ck.CacheKey(call)
		if err != nil {
			return "", err
		}
		buf = append(buf, 0)
		buf = append(buf, extra...)
	}
	if len(call.Sensitive) > 0 {
		// The key of a call with a sensitive input is an HMAC under the
		// state's salt: a plain hash of a secret would let whoever holds
		// the state test guesses of it offline, by hit or miss.
		salt, err := r.cacheSalt()
		if err != nil {
			return "", err
		}
		mac := hmac.New(sha256.New, salt)
		mac.Write(buf)
		return r.cacheGroup(b) + "." + hex.EncodeToString(mac.Sum(nil)), nil
	}
	sum := sha256.Sum256(buf)
	return r.cacheGroup(b) + "." + hex.EncodeToString(sum[:]), nil
}

// cacheGroup is the group of the cache keys of block b's calls (see
// state.CacheGroup): its fingerprint's first 16 characters.
func (r *run) cacheGroup(b *blocks.Block) string {
	fp := r.prog.Fingerprints[b]
	return fp[:min(len(fp), 16)]
}

// cacheGroupMin is how many instances a for_each step has at least for it
// to read its block's cache group before its instances look the cache
// up; below it, looking each up costs no more.
const cacheGroupMin = 32

// readCacheGroup reads, for a for_each step of n instances, what the
// cache holds of its block's group, which runInstance asks before each
// lookup (mayBeCached). Without it (a few instances, a block not cached,
// a group too large to read, an error) every instance looks itself up.
func (r *run) readCacheGroup(s *compiler.Step, n int) {
	if n < cacheGroupMin || r.opts.Store == nil || r.opts.NoCache || !(r.opts.CacheAll || s.CacheEnabled()) {
		return
	}
	if g, err := r.opts.Store.CacheGroup(r.cacheGroup(s.Block), 4*n+1024); err == nil && g != nil {
		r.cacheGroups.Store(s, g)
	}
}

// mayBeCached reports whether the cache may hold key, a key of step s.
func (r *run) mayBeCached(s *compiler.Step, key string) bool {
	g, ok := r.cacheGroups.Load(s)
	return !ok || g.(*state.CacheGroup).MayHold(key)
}

// cacheSalt is the state's cache salt (state.Store.CacheSalt), read once a
// run; without a state there is no cache, and no salt.
func (r *run) cacheSalt() ([]byte, error) {
	r.salt.once.Do(func() {
		if r.opts.Store == nil {
			r.salt.err = errors.New("there is no state to keep a cache salt in")
			return
		}
		r.salt.b, r.salt.err = r.opts.Store.CacheSalt()
	})
	return r.salt.b, r.salt.err
}

// cached returns the stored result for key, decoded and as stored, if
// there is one. The key covers the block's definition and the step's
// declared outputs, so a stored result has the types the step expects.
// A cache that cannot be read is an error, not a miss: the step would
// run again for nothing.
func (r *run) cached(key string) (cty.Value, json.RawMessage, bool, error) {
	raw, ok, err := r.opts.Store.CacheGet(key)
	if err != nil || !ok {
		return cty.NilVal, nil, false, err
	}
	v, err := DecodeValue(raw)
	if err != nil {
		return cty.NilVal, nil, false, nil
	}
	return v, raw, true, nil
}

// partCache is a step's blocks.PartCache: entries of the state's result
// cache under keys of their own ("part\x00" and the executor's key), so
// that they are kept, shared and pruned as results are. With --no-cache
// it stores but never reads.
type partCache struct {
	store      *state.Store
	flow, step string
	read       bool
}

func (c *partCache) Get(key string) (json.RawMessage, bool, error) {
	if !c.read {
		return nil, false, nil
	}
	return c.store.CacheGet("part\x00" + key)
}

func (c *partCache) Put(key string, value json.RawMessage) {
	c.store.CachePut("part\x00"+key, c.flow, c.step, value)
}
