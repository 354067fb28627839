package isolate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/gorun"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// WorkerArg is the first argument that makes the flowctl binary (or a test
// binary) run as a sandbox worker: its main function must call [Main]
// before anything else when it sees it.
const WorkerArg = "__flowctl-sandbox-worker"

// Protocol file descriptors, as the worker sees them.
const (
	requestFD = 3
	replyFD   = 4
)

// request is one call of a block, as sent to a worker.
type request struct {
	ID uint64 `json:"id"`
	// BlockKey identifies the block's definition; Block is sent only the
	// first time a worker sees the key, and the worker keeps it.
	BlockKey  string          `json:"block_key"`
	Block     *wireBlock      `json:"block,omitempty"`
	Step      string          `json:"step,omitempty"`
	Attempt   int             `json:"attempt,omitempty"`
	Inputs    json.RawMessage `json:"inputs"`            // an object, as package jsonval writes it
	Outputs   json.RawMessage `json:"outputs,omitempty"` // []wireField
	TimeoutMS int64           `json:"timeout_ms,omitempty"`
}

// wireBlock is what a worker needs of a block definition to run it.
type wireBlock struct {
	Name        string    `json:"name"`
	Runtime     string    `json:"runtime"`
	Source      string    `json:"source"`
	SourceFile  string    `json:"source_file,omitempty"`
	SourceLine  int       `json:"source_line,omitempty"`
	SourceRange hcl.Range `json:"source_range"`
}

// wireField is an output field the call expects.
type wireField struct {
	Name string          `json:"name"`
	Type json.RawMessage `json:"type"`
}

// message is a line from a worker: the hello after start-up, a log line of
// the running call, or its reply.
type message struct {
	// Hello: the worker is ready. Missing lists the confinement layers it
	// runs without, each with the reason.
	Hello   bool     `json:"hello,omitempty"`
	Missing []string `json:"missing,omitempty"`

	ID  uint64  `json:"id,omitempty"`
	Log *string `json:"log,omitempty"` // a pointer: an empty line is a line

	// Reply: Done is set, then either Error or Outputs (field name →
	// package jsonval). Recycle asks the parent to replace the
	// worker (its call was stopped, or it has used much of its CPU time).
	Done    bool                       `json:"done,omitempty"`
	Error   string                     `json:"error,omitempty"`
	Timeout bool                       `json:"timeout,omitempty"` // the call's deadline stopped it
	Outputs map[string]json.RawMessage `json:"outputs,omitempty"`
	Recycle bool                       `json:"recycle,omitempty"`
	// Line and Kind are a python worker's: the line of the file holding
	// the code where Error happened, and what it is (pyrun.Reply).
	Line int    `json:"line,omitempty"`
	Kind string `json:"kind,omitempty"`
	// Outcome is what a compiled block's program replies instead of
	// Outputs and Error: what Execute gave, converted here.
	Outcome *gorun.Outcome `json:"outcome,omitempty"`

	// values are Outputs read already, by outputsReply.
	values map[string]cty.Value
}

// blockKey identifies a definition's wire form: a hash of what a worker
// is sent of it.
func blockKey(b *wireBlock) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	_ = enc.Encode(b)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func toWire(def *lang.BlockDef) *wireBlock {
	return &wireBlock{
		Name: def.Name, Runtime: def.Runtime, Source: def.Source, SourceFile: def.SourceFile,
		SourceLine: def.SourceLine, SourceRange: def.SourceRange,
	}
}

// appendRequest appends the line of a request to buf. block is the
// definition's JSON, or nil when the worker has it; outputs is the JSON of
// the output fields ([]wireField), step and inputs are JSON too. The line
// is assembled by hand from parts that are JSON already: one is made for
// every call.
func appendRequest(buf []byte, id uint64, key string, block, outputs, step, inputs []byte, timeoutMS int64, attempt int) []byte {
	buf = append(buf, `{"id":`...)
	buf = strconv.AppendUint(buf, id, 10)
	buf = append(buf, `,"block_key":`...)
	buf = strconv.AppendQuote(buf, key) // hex digits
	if block != nil {
		buf = append(buf, `,"block":`...)
		buf = append(buf, block...)
	}
	buf = append(buf, `,"step":`...)
	buf = append(buf, step...)
	if attempt > 0 {
		buf = append(buf, `,"attempt":`...)
		buf = strconv.AppendInt(buf, int64(attempt), 10)
	}
	buf = append(buf, `,"inputs":`...)
	buf = append(buf, inputs...)
	if len(outputs) > 0 {
		buf = append(buf, `,"outputs":`...)
		buf = append(buf, outputs...)
	}
	if timeoutMS > 0 {
		buf = append(buf, `,"timeout_ms":`...)
		buf = strconv.AppendInt(buf, timeoutMS, 10)
	}
	return append(buf, "}\n"...)
}

// knownRequest reads a request line as appendRequest writes one without a
// block definition (every call after a block's first on a worker): its
// texts are sliced out of the line, not read by encoding/json. ok is
// false for any other line, which is read as usual.
func knownRequest(line []byte) (req request, ok bool) {
	r := fieldReader{b: bytes.TrimSuffix(line, []byte("\n"))}
	if !r.cut(`{"id":`) || !r.uint(&req.ID) || !r.cut(`,"block_key":`) {
		return req, false
	}
	key, ok := r.str()
	if !ok || !r.cut(`,"step":`) {
		return req, false
	}
	req.BlockKey = key
	if req.Step, ok = r.str(); !ok {
		return req, false
	}
	attempt, ok := r.optUint(`,"attempt":`, math.MaxInt32)
	if !ok {
		return req, false
	}
	req.Attempt = int(attempt)
	if !r.cut(`,"inputs":`) {
		return req, false
	}
	if req.Inputs, ok = r.value(); !ok {
		return req, false
	}
	if r.cut(`,"outputs":`) {
		if req.Outputs, ok = r.value(); !ok {
			return req, false
		}
	}
	timeout, ok := r.optUint(`,"timeout_ms":`, math.MaxInt64)
	req.TimeoutMS = int64(timeout)
	return req, ok && r.cut("}") && len(r.b) == 0
}

// fieldReader reads the known parts of a line, from its start.
type fieldReader struct{ b []byte }

func (r *fieldReader) cut(prefix string) bool {
	rest, ok := bytes.CutPrefix(r.b, []byte(prefix))
	if ok {
		r.b = rest
	}
	return ok
}

func (r *fieldReader) uint(n *uint64) bool {
	i := 0
	for i < len(r.b) && r.b[i] >= '0' && r.b[i] <= '9' {
		i++
	}
	v, err := strconv.ParseUint(string(r.b[:i]), 10, 64)
	r.b = r.b[i:]
	*n = v
	return err == nil
}

// optUint reads prefix and a whole number up to max after it, when the
// line goes on with prefix (0 when it does not).
func (r *fieldReader) optUint(prefix string, max uint64) (uint64, bool) {
	var n uint64
	if !r.cut(prefix) {
		return 0, true
	}
	return n, r.uint(&n) && n <= max
}

// str reads a JSON string; one with escapes through encoding/json.
func (r *fieldReader) str() (string, bool) {
	text, ok := r.value()
	if !ok || len(text) < 2 || text[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(text, '\\') < 0 && utf8.Valid(text) {
		return string(text[1 : len(text)-1]), true
	}
	var s string
	return s, json.Unmarshal(text, &s) == nil
}

// value slices out the JSON value at the start (of the line, which the
// worker reads afresh for each request), as jsonval.ValueEnd finds its
// end. The text is checked by whoever reads it (jsonval, encoding/json).
func (r *fieldReader) value() ([]byte, bool) {
	n, ok := jsonval.ValueEnd(r.b, 0)
	if !ok || n == 0 {
		return nil, false
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v, true
}

// outputsJSON is the JSON of a call's output fields with their types.
func outputsJSON(fields []*lang.Field) ([]byte, error) {
	out := make([]wireField, 0, len(fields))
	for _, f := range fields {
		ty, err := ctyjson.MarshalType(f.Type.Type)
		if err != nil {
			return nil, fmt.Errorf("cannot describe output %q: %w", f.Name, err)
		}
		out = append(out, wireField{Name: f.Name, Type: ty})
	}
	return json.Marshal(out)
}

// decodeOutputFields reads the output fields of a request.
func decodeOutputFields(raw []byte) ([]*lang.Field, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var wf []wireField
	if err := json.Unmarshal(raw, &wf); err != nil {
		return nil, fmt.Errorf("reading the output fields: %w", err)
	}
	fields := make([]*lang.Field, 0, len(wf))
	for _, f := range wf {
		ty, err := ctyjson.UnmarshalType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("reading the type of output %q: %w", f.Name, err)
		}
		fields = append(fields, &lang.Field{Name: f.Name, Type: lang.TypeSpec{Type: ty}})
	}
	return fields, nil
}

// decodeRequest turns a request back into a call of block b with the
// given output fields. A js block's inputs stay the request's JSON text,
// which jsrun reads itself (Executor.ExecuteUntil); those of the others
// are decoded into call.Inputs.
func decodeRequest(req *request, b *blocks.Block, outputs []*lang.Field) (*blocks.Call, error) {
	call := &blocks.Call{Block: b, Inputs: map[string]cty.Value{}, Outputs: outputs, Step: req.Step}
	if b.Runtime == lang.RuntimeJS {
		return call, nil
	}
	in, err := jsonval.Decode(req.Inputs)
	if err != nil {
		return nil, fmt.Errorf("reading the inputs: %w", err)
	}
	if !in.IsNull() && in.Type().IsObjectType() {
		call.Inputs = in.AsValueMap()
	}
	return call, nil
}

// fromWire is the block a worker runs for a wire definition.
func fromWire(w *wireBlock) *blocks.Block {
	def := &lang.BlockDef{
		Name: w.Name, Runtime: w.Runtime, Source: w.Source,
		SourceFile: w.SourceFile, SourceLine: w.SourceLine, SourceRange: w.SourceRange,
	}
	return &blocks.Block{Name: def.Name, Runtime: def.Runtime, Def: def}
}

// encodeReply is the line of a reply, assembled by hand when it carries
// outputs (which are JSON already).
func encodeReply(m message) ([]byte, error) {
	if m.Error != "" || m.Outputs == nil {
		b, err := json.Marshal(m)
		return append(b, '\n'), err
	}
	size := 64
	for k, v := range m.Outputs {
		size += len(k) + len(v) + 8
	}
	buf := make([]byte, 0, size)
	buf = append(buf, `{"id":`...)
	buf = strconv.AppendUint(buf, m.ID, 10)
	buf = append(buf, `,"done":true`...)
	if m.Timeout {
		buf = append(buf, `,"timeout":true`...)
	}
	if m.Recycle {
		buf = append(buf, `,"recycle":true`...)
	}
	buf = append(buf, `,"outputs":{`...)
	first := true
	for k, v := range m.Outputs {
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = jsonval.AppendString(buf, k)
		buf = append(buf, ':')
		buf = append(buf, v...)
	}
	return append(buf, "}}\n"...), nil
}

// encodeOutputs is the Outputs of a reply.
func encodeOutputs(outs map[string]cty.Value) (map[string]json.RawMessage, error) {
	m := make(map[string]json.RawMessage, len(outs))
	for k, v := range outs {
		b, err := jsonval.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("output %q cannot be passed back: %w", k, err)
		}
		m[k] = b
	}
	return m, nil
}

// outputsReply reads a reply line as a sandbox worker writes one with
// outputs (encodeReply), its outputs read into values: a for_each of small
// calls reads tens of thousands of them, and encoding/json read each into
// a map of raw texts first. ok is false for any other line, which is read
// as usual.
func outputsReply(line []byte) (m message, ok bool) {
	rest, found := bytes.CutPrefix(bytes.TrimSuffix(line, []byte("\n")), []byte(`{"id":`))
	if !found {
		return m, false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	id, err := strconv.ParseUint(string(rest[:i]), 10, 64)
	if err != nil {
		return m, false
	}
	if rest, found = bytes.CutPrefix(rest[i:], []byte(`,"done":true`)); !found {
		return m, false
	}
	if rest, found = bytes.CutPrefix(rest, []byte(`,"timeout":true`)); found {
		m.Timeout = true
	}
	if rest, found = bytes.CutPrefix(rest, []byte(`,"recycle":true`)); found {
		m.Recycle = true
	}
	outs, found := bytes.CutPrefix(rest, []byte(`,"outputs":`))
	if !found || !bytes.HasSuffix(outs, []byte("}")) {
		return m, false
	}
	values, err := jsonval.DecodeAttrs(outs[:len(outs)-1])
	if err != nil {
		return m, false
	}
	m.ID, m.Done, m.values = id, true, values
	return m, true
}

// decodeOutputs reads the Outputs of a reply.
func decodeOutputs(m map[string]json.RawMessage) (map[string]cty.Value, error) {
	outs := make(map[string]cty.Value, len(m))
	for k, b := range m {
		v, err := jsonval.Decode(b)
		if err != nil {
			return nil, fmt.Errorf("output %q came back unreadable: %w", k, err)
		}
		outs[k] = v
	}
	return outs, nil
}
