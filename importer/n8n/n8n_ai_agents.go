package n8n

import (
	"fmt"
	"strings"
)

// The ReAct agent (the Agent node's reActAgent, ReActAgent/execute.js):
// langchain's ChatAgent asks the model in text for a Thought, an Action
// and its input or a Final Answer, and the item is {output = the final
// answer}. The flow's llm step asks through the API's tool calls, and
// its reply is that answer: the item is the same, {output}. The prompt's
// parts it has of its own (Prefix, Suffix, Human Message Template) are
// not converted, nor a tool n8n gives it as a structured tool, which its
// checkForStructuredTools refuses.

// reActOptions are the ReAct agent's options that make its text prompt.
var reActOptions = []string{"prefix", "suffix", "suffixChat", "humanMessageTemplate"}

// reActAgent checks what of a ReAct agent converts, and reports it.
func (n *n8n) reActAgent(node *n8nNode) bool {
	opts := node.params.Get("options")
	for _, k := range reActOptions {
		if v := opts.Get(k); v != nil {
			n.Problem(node.where, v, "Unsupported option",
				fmt.Sprintf("the ReAct agent's %s is part of its text prompt (Thought, Action, Final Answer), which the llm step does not send: it calls the tools through the API's tool calls.", k))
			return false
		}
	}
	for _, t := range node.subNodes("ai_tool") {
		if t.disabled {
			continue
		}
		if why := structuredTool(t); why != "" {
			n.Problem(node.where, t.j.Get("type"), "Unsupported agent",
				fmt.Sprintf("the ReAct agent's tool %q is a structured tool in n8n (%s), which the ReAct agent refuses (use the Tools Agent): n8n fails the node.", t.name, why))
			return false
		}
	}
	if node.version <= 1.6 && len(node.subNodes("ai_outputParser")) > 0 {
		n.Problem(node.where, node.subNodes("ai_outputParser")[0].j, "Unsupported output parser",
			"a ReAct agent before v1.7 gives the parser's whole object as its output ({output = {output = …}}); v1.7 on is converted.")
		return false
	}
	if mems := node.subNodes("ai_memory"); len(mems) > 0 {
		n.Warn(node.where, mems[0].j, "Memory left out", "the ReAct agent has no memory input: n8n does not read the memory connected to it, nor does the flow.")
	}
	n.Warn(node.where, node.params.Get("agent"), "Agent converted as a tools agent",
		"the ReAct agent is converted as n8n's Tools Agent: the model calls the tools through the API's tool calls, without the ReAct text prompt, and its reply is the step's output.")
	return true
}

// structuredTool says why n8n gives a tool to an agent as a
// DynamicStructuredTool (its arguments an object), or "".
func structuredTool(t *n8nNode) string {
	short := strings.TrimPrefix(t.fullType, langchainPrefix)
	p := t.params
	switch {
	case short != t.fullType && (short == "toolCode" || short == "toolWorkflow" && t.version < 2) && p.Boolean(false, "specifyInputSchema"):
		return "its input schema"
	case short == "toolWorkflow" && t.version >= 2:
		return "its Workflow Inputs"
	case strings.HasPrefix(t.fullType, n8nPrefix) && strings.HasSuffix(t.typ, "Tool"):
		return "a node used as a tool"
	}
	return ""
}
