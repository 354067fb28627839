package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
)

// stepTools gives the model of an llm step instance its tools: their
// definitions (an MCP server's from the server, which this starts), and
// the function that runs the calls, recording each.
func (r *run) stepTools(ctx context.Context, s *compiler.Step, inst instance, log func(string)) (*blocks.Tools, error) {
	if len(s.Tools) == 0 {
		return nil, nil
	}
	t := &blocks.Tools{Max: s.ToolCallLimit()}
	byName := map[string]*compiler.Tool{}
	var names []string
	for _, tool := range s.Tools {
		def := blocks.ToolDef{Name: tool.Name, Description: tool.Description()}
		if tool.MCP != nil {
			sess, err := r.mcpSession(ctx, tool.MCP.Name)
			if err != nil {
				return nil, err
			}
			mt, err := sess.Tool(ctx, tool.Name)
			if err != nil {
				return nil, err
			}
			def.Description, def.Parameters = mt.Description, mt.InputSchema
		} else {
			def.Parameters, _ = json.Marshal(tool.InputSchema())
		}
		t.Defs = append(t.Defs, def)
		byName[tool.Name] = tool
		names = append(names, tool.Name)
	}
	t.Call = func(ctx context.Context, id, name, args string) (string, error) {
		tool := byName[name]
		ref := name
		if tool != nil {
			ref = tool.Ref()
		}
		start := time.Now()
		emit(r, ToolCallStarted{Time: start, Step: s.Name, Instance: inst.key, Tool: ref, CallID: id, Arguments: r.redact.redact(args)})
		var out toolResult
		var err error
		if tool == nil {
			err = fmt.Errorf("there is no tool named %q; the tools are %s", name, strings.Join(names, ", "))
		} else {
			out, err = r.callTool(ctx, s, inst, tool, args, log)
		}
		e := ToolCallFinished{Time: time.Now(), Step: s.Name, Instance: inst.key, Tool: ref, CallID: id,
			Duration: time.Since(start), Cached: out.cached, RunID: out.runID}
		if err != nil {
			e.Error = r.redact.redact(err.Error())
		}
		emit(r, e)
		return out.json, err
	}
	return t, nil
}

// toolResult is what a tool call returned: its outputs as JSON text.
type toolResult struct {
	json   string
	cached bool
	runID  string
}

// callTool runs one call with the model's arguments: a flow as a run of
// its own, a block through its executor with the cache and the step's
// retries.
func (r *run) callTool(ctx context.Context, s *compiler.Step, inst instance, tool *compiler.Tool, args string, log func(string)) (toolResult, error) {
	var raw map[string]json.RawMessage
	if strings.TrimSpace(args) != "" {
		if err := json.Unmarshal([]byte(args), &raw); err != nil || raw == nil {
			return toolResult{}, fmt.Errorf("the arguments must be a JSON object of the tool's inputs; got %s", clip(args, 200))
		}
	}
	switch {
	case tool.Flow != nil:
		return r.callFlow(ctx, tool, raw, Label(s.Name, inst.key), r.childReplacer(s, tool.Name))
	case tool.MCP != nil:
		if err := r.offline(&blocks.Block{Name: tool.Ref(), Remote: blocks.RemoteMCP}); err != nil {
			return toolResult{}, err
		}
		return r.callMCP(ctx, tool, args)
	}
	return r.callBlock(ctx, s, tool.Block, raw, log)
}

// callFlow runs a flow tool: the arguments are the inputs the model may
// give (Tool.ModelInputs); the others keep their defaults.
func (r *run) callFlow(ctx context.Context, tool *compiler.Tool, raw map[string]json.RawMessage, step string, replace Replacer) (toolResult, error) {
	prog := tool.Flow
	open := map[string]bool{}
	var names []string
	for _, in := range tool.ModelInputs() {
		open[in.Name] = true
		names = append(names, in.Name)
	}
	given := map[string]compiler.InputValue{}
	for name, v := range raw {
		in := prog.InputsByName[name]
		switch {
		case in != nil && in.Sensitive:
			return toolResult{}, fmt.Errorf("input %q of flow %s is sensitive: a model may not give it", name, prog.Flow.Name)
		case in != nil && !open[name]:
			return toolResult{}, fmt.Errorf("input %q of flow %s is set by the flow, not by the caller; the tool's arguments are %s", name, prog.Flow.Name, listOrNone(names))
		}
		val, err := jsonval.Decode(v)
		if err != nil {
			return toolResult{}, fmt.Errorf("argument %q is not JSON: %v", name, err)
		}
		given[name] = compiler.InputValue{Value: val, Source: "the arguments"}
	}
	res, err := r.runFlow(ctx, prog, given, nil, "tool", step, replace)
	if err != nil {
		if res != nil {
			return toolResult{runID: res.RunID}, err
		}
		return toolResult{}, err
	}
	b, err := json.Marshal(PlainOutputs(res.Outputs))
	return toolResult{json: string(b), runID: res.RunID}, err
}

// callMCP calls a tool of an MCP server with the model's arguments, which
// the server checks. Its result is the structured content, else the text.
func (r *run) callMCP(ctx context.Context, tool *compiler.Tool, args string) (toolResult, error) {
	sess, err := r.mcpSession(ctx, tool.MCP.Name)
	if err != nil {
		return toolResult{}, err
	}
	var raw json.RawMessage
	if strings.TrimSpace(args) != "" {
		raw = json.RawMessage(args)
	}
	res, err := sess.Call(ctx, tool.Name, raw)
	switch {
	case err != nil:
		return toolResult{}, err
	case res.IsError:
		return toolResult{}, fmt.Errorf("the tool failed: %s", clip(res.Text, 2000))
	case res.Structured != nil:
		return toolResult{json: string(res.Structured)}, nil
	}
	return toolResult{json: res.Text}, nil
}

// callBlock runs a block tool: the arguments are its inputs, checked and
// converted as a step's are; its result is cached as a step's would be.
func (r *run) callBlock(ctx context.Context, s *compiler.Step, b *blocks.Block, raw map[string]json.RawMessage, log func(string)) (toolResult, error) {
	for name := range raw {
		if b.Input(name) == nil {
			return toolResult{}, fmt.Errorf("block %s has no input %q; its inputs are %s", b.Name, name, strings.Join(b.InputNames(), ", "))
		}
	}
	inputs := make(map[string]cty.Value, len(b.Inputs))
	for _, in := range b.Inputs {
		v, ok := raw[in.Name]
		if !ok {
			if in.Required() {
				return toolResult{}, fmt.Errorf("input %q (%s) of block %s is required", in.Name, lang.FriendlyTypeName(in.Type.Type), b.Name)
			}
			inputs[in.Name] = in.Default
			continue
		}
		val, err := jsonval.Decode(v)
		if err != nil {
			return toolResult{}, fmt.Errorf("argument %q is not JSON: %v", in.Name, err)
		}
		cv, summary, detail := convertInput(b, in, val)
		if summary != "" {
			return toolResult{}, fmt.Errorf("argument %q: %s", in.Name, detail)
		}
		inputs[in.Name] = cv
	}
	if err := r.offline(b); err != nil {
		return toolResult{}, err
	}
	exec, err := r.opts.Executors.For(b)
	if err != nil {
		return toolResult{}, err
	}
	call := &blocks.Call{Block: b, Inputs: inputs, Outputs: b.Outputs, Dir: r.prog.Dir, Touch: r.opts.OnFileRead,
		Step: s.Name + " → " + b.Name, Redact: r.redact.redact}
	if log != nil {
		call.Log = func(line string) { log("[" + b.Name + "] " + line) }
	}
	key := ""
	if b.CacheDefault && r.opts.Store != nil {
		if key, err = r.blockCacheKey(b, call, exec, b.Outputs); err == nil && !r.opts.NoCache {
			if v, _, ok, _ := r.cached(key); ok {
				plain, err := jsonval.Marshal(v)
				return toolResult{json: string(plain), cached: true}, err
			}
		}
	}
	res, _, _, err := retrying(s.Retry, blockTimeout(b)).run(ctx, exec, call, nil)
	if errors.Is(err, errCancelled) {
		return toolResult{}, ctx.Err()
	}
	if err != nil {
		return toolResult{}, err
	}
	v, err := convertOutputs(b, b.Outputs, call, res)
	if err != nil {
		return toolResult{}, err
	}
	if stored, err := EncodeValue(v); err == nil && key != "" {
		r.opts.Store.CachePut(key, r.prog.Flow.Name, s.Name+" → "+b.Name, stored)
	}
	plain, err := jsonval.Marshal(v)
	return toolResult{json: string(plain)}, err
}

// listOrNone joins names for a message, "none" when there are none.
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// clip cuts s to n runes, marking the cut.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
