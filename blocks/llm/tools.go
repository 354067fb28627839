package llm

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/flowctl/flowctl/blocks"
	openai "github.com/sashabaranov/go-openai"
)

// toolLoop runs the tool calls of one llm call: at most Max in all; the
// calls of one reply concurrently. A nil toolLoop offers no tools.
type toolLoop struct {
	tools *blocks.Tools
	defs  []openai.Tool
	used  int
	// over counts replies that called tools after the last was used.
	over int
}

func newToolLoop(call *blocks.Call) *toolLoop {
	if call.Tools == nil || len(call.Tools.Defs) == 0 {
		return nil
	}
	tl := &toolLoop{tools: call.Tools}
	for _, d := range call.Tools.Defs {
		tl.defs = append(tl.defs, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: d.Name, Description: d.Description, Parameters: d.Parameters,
		}})
	}
	return tl
}

// offer lists the tools in a request; once every call is used, the model
// may no longer call them (tool_choice none).
func (tl *toolLoop) offer(r *request) {
	if tl == nil {
		return
	}
	r.tools = tl.defs
	r.noToolCalls = tl.used >= tl.tools.Max
}

// converse asks the model (ask sends the conversation with the turns so
// far) and runs the tools it calls, adding each round to turns, until it
// answers. It returns the answer and whether it was cut off at
// max_tokens.
func (e *Executor) converse(ctx context.Context, tl *toolLoop, turns *[]openai.ChatCompletionMessage,
	ask func([]openai.ChatCompletionMessage) (openai.ChatCompletionMessage, bool, error)) (string, bool, error) {
	for {
		msg, cut, err := ask(*turns)
		if err != nil {
			return "", false, err
		}
		if tl == nil || len(msg.ToolCalls) == 0 {
			return msg.Content, cut, nil
		}
		results, err := tl.run(ctx, msg.ToolCalls)
		if err != nil {
			return "", false, err
		}
		*turns = append(*turns, openai.ChatCompletionMessage{
			Role: openai.ChatMessageRoleAssistant, Content: msg.Content, ToolCalls: msg.ToolCalls,
		})
		*turns = append(*turns, results...)
	}
}

// run runs the calls of one reply and returns their results, in order, as
// tool messages. A call past the limit is not run: its result tells the
// model to answer. It fails only when the context ended, or when the
// model kept calling tools after being told twice that it may not.
func (tl *toolLoop) run(ctx context.Context, calls []openai.ToolCall) ([]openai.ChatCompletionMessage, error) {
	if tl.used >= tl.tools.Max {
		tl.over++
		if tl.over >= 2 {
			return nil, fmt.Errorf("the model kept calling tools after its %d tool calls (max_tool_calls) were used", tl.tools.Max)
		}
	}
	out := make([]openai.ChatCompletionMessage, len(calls))
	var wg sync.WaitGroup
	for i := range calls {
		c := &calls[i]
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", tl.used+i+1) // some servers give none
		}
		out[i] = openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: c.ID}
		if tl.used >= tl.tools.Max {
			out[i].Content = fmt.Sprintf("Error: this step may make %d tool calls, and all are used. Answer now with what you have.", tl.tools.Max)
			continue
		}
		tl.used++
		wg.Go(func() {
			result, err := tl.tools.Call(ctx, c.ID, c.Function.Name, c.Function.Arguments)
			if err != nil {
				result = "Error: " + strings.TrimSuffix(err.Error(), ".") + "."
			}
			out[i].Content = result
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
