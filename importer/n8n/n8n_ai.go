package n8n

import (
	"fmt"
	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// n8n's AI nodes (@n8n/n8n-nodes-langchain). A root node (an agent, a
// chain) takes items on its main input like any node; its sub-nodes (a
// chat model, a memory, tools, an output parser) hang on its AI inputs
// (ai_languageModel, ai_memory, ai_tool, ai_outputParser, …) and run
// inside it, once per item. Each converts to the language's own part: a
// chat model to a provider and the step's model, a memory to a
// conversation kept in a memory block, an output parser to the step's
// output blocks, a tool to an entry of the step's tools. A sub-node is
// converted with its root, and only there.

// langchainPrefix is the package of n8n's AI nodes.
const langchainPrefix = "@n8n/n8n-nodes-langchain."

// aiKinds are the AI connection types, in the order they are read.
var aiKinds = []string{"ai_languageModel", "ai_memory", "ai_tool", "ai_outputParser", "ai_embedding", "ai_document", "ai_textSplitter", "ai_vectorStore", "ai_retriever", "ai_reranker"}

// subNodes are the sub-nodes on a root's AI input of a kind.
func (node *n8nNode) subNodes(kind string) []*n8nNode { return node.ai[kind] }

// markSubNodes marks the sub-nodes a root that runs uses (and theirs),
// which run with it.
func markSubNodes(node *n8nNode) {
	for _, kind := range aiKinds {
		for _, sub := range node.ai[kind] {
			if !sub.sub {
				sub.sub = true
				markSubNodes(sub)
			}
		}
	}
}

// aiModel is what a chat model sub-node gives the step that calls it.
type aiModel struct {
	provider string
	args     []importer.Member // model, temperature, max_tokens, top_p
	timeout  string
	// completion is a text completion model's (n8n's "Model", not "Chat
	// Model"): see n8n_ai_models.go.
	completion bool
	// jsonFormat is the model's option asking for JSON replies, which a
	// Basic LLM Chain parses (see n8n_ai_models.go).
	jsonFormat *importer.JV
}

// chatModel describes a chat model node: its credential type, the
// OpenAI-compatible URL of its service, the parameter that names the
// model and its default, and the version from which that parameter is a
// resource locator ({mode, value}).
type chatModel struct {
	cred, url, param, def string
	locator               float64
	urlInCredential       bool // the credential holds the URL (a server of one's own)
}

var chatModels = map[string]chatModel{
	"lmChatOpenAi":       {"openAiApi", "https://api.openai.com/v1", "model", "gpt-5-mini", 1.2, false},
	"lmChatAnthropic":    {"anthropicApi", "https://api.anthropic.com/v1", "model", "claude-sonnet-4-5-20250929", 1.3, false},
	"lmChatGoogleGemini": {"googlePalmApi", "https://generativelanguage.googleapis.com/v1beta/openai", "modelName", "models/gemini-2.5-flash", 0, false},
	"lmChatOllama":       {"ollamaApi", "http://localhost:11434/v1", "model", "llama3.2", 0, true},
	"lmChatOpenRouter":   {"openRouterApi", "https://openrouter.ai/api/v1", "model", "openai/gpt-4.1-mini", 0, false},
	"lmChatGroq":         {"groqApi", "https://api.groq.com/openai/v1", "model", "llama3-8b-8192", 0, false},
	"lmChatMistralCloud": {"mistralCloudApi", "https://api.mistral.ai/v1", "model", "mistral-small", 0, false},
	"lmChatDeepSeek":     {"deepSeekApi", "https://api.deepseek.com/v1", "model", "deepseek-chat", 0, false},
	"lmChatXAiGrok":      {"xAiApi", "https://api.x.ai/v1", "model", "grok-2-vision-1212", 0, false},
	"lmChatAzureOpenAi":  {"azureOpenAiApi", "https://RESOURCE.openai.azure.com/openai/v1", "model", "", 0, true},
}

// modelOptions are the chat models' options the llm step takes, by the
// name each model node gives them.
var modelOptions = map[string]string{
	"temperature": "temperature", "topP": "top_p",
	"maxTokens": "max_tokens", "maxTokensToSample": "max_tokens", "maxOutputTokens": "max_tokens", "numPredict": "max_tokens",
}

// languageModel converts the chat model on a root's ai_languageModel
// input. It reports a root without one, and a model node it does not
// convert, and returns false then.
func (n *n8n) languageModel(root *n8nNode, s *n8nScope) (aiModel, bool) {
	models := root.subNodes("ai_languageModel")
	if len(models) == 0 {
		n.Problem(root.where, root.j, "Missing chat model", "the node needs a chat model on its Chat Model input, as n8n does.")
		return aiModel{}, false
	}
	if len(models) > 1 {
		n.Warn(root.where, models[1].j, "Fallback model left out", fmt.Sprintf("the flow calls the first model, %q; n8n calls %q only when that one fails.", models[0].name, models[1].name))
	}
	node := models[0]
	short := strings.TrimPrefix(node.fullType, langchainPrefix)
	cm, ok := chatModels[short]
	_, completion := completionModels[short]
	if completion && !node.disabled {
		if cm, ok = n.completionModel(root, node, short); !ok {
			return aiModel{}, false
		}
	}
	if !ok || node.disabled {
		n.Problem(node.where, node.j.Get("type"), "Unsupported chat model",
			fmt.Sprintf("flowctl import converts the chat models that speak OpenAI's API (%s); not %s.", strings.Join(importer.SortedKeys(chatModels), ", "), node.fullType))
		return aiModel{}, false
	}
	node.conv = true
	p := node.params
	m := aiModel{completion: completion}
	credName := node.j.Text("credentials", cm.cred, "name")
	if credName == "" {
		credName = short
	}
	url := cm.url
	// Only OpenAI Chat Model v1.0 shows the Base URL option; later
	// versions take the credential's URL, whatever the option says.
	if b := p.Get("options", "baseURL"); b != nil && short == "lmChatOpenAi" && node.version < 1.1 {
		if b.Kind != 's' || strings.HasPrefix(b.Str, "=") {
			n.Problem(node.where, b, "Unsupported option", "a base URL is converted when it is written out, not an expression: a provider's base_url is a literal.")
			return aiModel{}, false
		}
		url = strings.TrimSuffix(b.Str, "/")
	} else if cm.urlInCredential {
		n.Warn(node.where, node.j.Get("credentials"), "Provider URL from n8n's default",
			fmt.Sprintf("the workflow does not hold the URL of credential %q; provider %s uses %s: change its base_url to the credential's.", credName, importer.Snake(credName), url))
	}
	m.provider = n.provider(credName, cm, url, short)
	model := p.Get(cm.param)
	if model != nil && model.Kind == 'o' && node.version >= cm.locator && cm.locator > 0 {
		model = model.Get("value")
	}
	var modelExpr importer.Expr
	switch {
	case model == nil && cm.def == "":
		n.Problem(node.where, p, "Missing model", "the node names no model (for Azure, the deployment).")
		return aiModel{}, false
	case model == nil:
		n.Warn(node.where, p, "Default model", fmt.Sprintf("the node names no model: the flow asks for %q, n8n's default for this node.", strings.TrimPrefix(cm.def, "models/")))
		modelExpr = importer.Str(strings.TrimPrefix(cm.def, "models/"))
	case model.Kind == 's' && !strings.HasPrefix(model.Str, "="):
		modelExpr = importer.Str(strings.TrimPrefix(model.Str, "models/"))
	default:
		modelExpr = s.textValue(model, "model")
	}
	m.args = append(m.args, importer.Member{Name: "model", Value: modelExpr})
	opts := p.Get("options")
	m.jsonFormat = jsonFormatOption(opts)
	var skipped []string
	if opts != nil && opts.Kind == 'o' {
		for _, k := range opts.Keys {
			v := opts.Obj[k]
			if name, ok := modelOptions[k]; ok {
				if name == "max_tokens" && v.Kind == 'n' && v.Num == "-1" {
					continue // n8n's "no limit"
				}
				m.args = append(m.args, importer.Member{Name: name, Value: s.value(v, k)})
				continue
			}
			switch k {
			case "baseURL", "maxRetries":
				// The URL is the provider's; flowctl retries a model's
				// errors itself.
			case "timeout":
				if v.Kind == 'n' {
					ms, _ := strconv.ParseFloat(v.Num, 64)
					m.timeout = importer.Duration(int64(ms))
				}
			default:
				skipped = append(skipped, k)
			}
		}
	}
	if len(skipped) > 0 {
		n.Warn(node.where, opts, "Model option not converted",
			fmt.Sprintf("the llm step has no %s: the model's default applies.", strings.Join(skipped, ", ")))
	}
	return m, true
}

// provider declares the provider of a credential (once) and returns its
// name: one credential, one provider and one secret.
func (n *n8n) provider(credName string, cm chatModel, url, short string) string {
	key := cm.cred + "\x00" + credName + "\x00" + url
	if p, ok := n.providers[key]; ok {
		return p
	}
	name := n.Name("provider", credName, "model")
	b := hclwrite.NewBlock("provider", []string{name})
	b.Body().SetAttributeValue("base_url", cty.StringVal(url))
	if cm.cred != "ollamaApi" {
		sec := n.credentialSecret(credName, cm.cred)
		b.Body().SetAttributeRaw("api_key", importer.Clone(importer.Ref("secret", sec)))
	}
	n.File.Providers = append(n.File.Providers, importer.Decl{
		Comment: []string{fmt.Sprintf("n8n credential %q (%s), of node type %s", credName, cm.cred, short)},
		Block:   b,
	})
	n.providers[key] = name
	return name
}

// credentialSecret is the secret of an n8n credential's key: one for each
// credential, whichever nodes use it.
func (n *n8n) credentialSecret(credName, credType string) string {
	key := credType + "\x00" + credName
	if s, ok := n.credSecrets[key]; ok {
		return s
	}
	s := n.AddSecret(credName, fmt.Sprintf("the API key of n8n credential %q (%s)", credName, credType), "")
	n.credSecrets[key] = s
	return s
}

// aiPrompt is a chain's or an agent's prompt parameter: the user message,
// as n8n's getPromptInputByType reads it (promptType auto: the chat
// trigger's chatInput; define: text), or older versions' own parameter.
// A field the item lacks makes it null, and the step fails on it ("Missing
// prompt"), as n8n fails the node on an undefined prompt.
func (n *n8n) aiPrompt(node *n8nNode, s *n8nScope, legacyUntil float64, legacyKey string, legacyDefaults map[float64]string) importer.Expr {
	e := n.aiPromptValue(node, s, legacyUntil, legacyKey, legacyDefaults)
	if len(e) == 1 && e[0].Type == hclsyntax.TokenOQuote || len(e) > 0 && e[0].Type == hclsyntax.TokenOQuote && e[len(e)-1].Type == hclsyntax.TokenCQuote && !strings.Contains(string(e.Bytes()), "${") {
		return e // a literal
	}
	return importer.Call("try", inline(e), importer.Code("null"))
}

func (n *n8n) aiPromptValue(node *n8nNode, s *n8nScope, legacyUntil float64, legacyKey string, legacyDefaults map[float64]string) importer.Expr {
	p := node.params
	synth := func(src, key string) *importer.JV {
		return &importer.JV{Kind: 's', Str: src, Ptr: p.Ptr + "/" + key, Rng: p.Rng}
	}
	if node.version <= legacyUntil {
		v := p.Get(legacyKey)
		if v == nil {
			def := ""
			var best float64 = -1
			for ver, d := range legacyDefaults {
				if ver <= node.version && ver > best {
					best, def = ver, d
				}
			}
			v = synth(def, legacyKey)
		}
		return s.textValue(v, "prompt")
	}
	switch t := p.Text("promptType"); t {
	case "define":
		v := p.Get("text")
		if v == nil {
			v = synth("", "text")
		}
		return s.textValue(v, "prompt")
	case "guardrails":
		return s.textValue(synth(`={{ $json["guardrailsInput"] }}`, "promptType"), "prompt")
	default:
		return s.textValue(synth(`={{ $json["chatInput"] }}`, "promptType"), "prompt")
	}
}

// stepArgs sets a model's arguments on an llm step.
func (m aiModel) stepArgs(body *hclwrite.Body) {
	body.SetAttributeRaw("provider", importer.Clone(importer.Ref("provider", m.provider)))
	for _, a := range m.args {
		body.SetAttributeRaw(a.Name, importer.Clone(a.Value))
	}
	if m.timeout != "" {
		body.SetAttributeValue("timeout", cty.StringVal(m.timeout))
	}
}

// outputBlock adds an output block to a step.
func outputBlock(body *hclwrite.Body, name, typ, description string, enum []string, optional bool) {
	b := body.AppendNewBlock("output", []string{name}).Body()
	b.SetAttributeRaw("type", importer.Clone(importer.Code(typ)))
	if description != "" {
		b.SetAttributeValue("description", cty.StringVal(description))
	}
	if len(enum) > 0 {
		var vals []cty.Value
		for _, e := range enum {
			vals = append(vals, cty.StringVal(e))
		}
		b.SetAttributeValue("enum", cty.ListVal(vals))
	}
	if optional {
		b.SetAttributeValue("optional", cty.True)
	}
}

// outputName is a name for a step's output field made from text: not
// text or usage, which the llm block keeps, and not one used.
func outputName(text string, used map[string]bool) string {
	base := importer.Snake(text)
	if base == "" {
		base = "field"
	}
	name := base
	for i := 2; used[name] || name == "text" || name == "usage"; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	used[name] = true
	return name
}

// aiNodeNames lists the AI node types converted, for messages.
func aiNodeNames() string {
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range n8nAINodeTypes {
			if !yield(k) {
				return
			}
		}
	})
	return strings.Join(names, ", ")
}

// n8nAINodeTypes converts each AI node type that runs on items (without
// the @n8n/n8n-nodes-langchain. prefix); the sub-nodes are converted by
// the nodes they hang on.
var n8nAINodeTypes map[string]func(n *n8n, node *n8nNode, in n8nItems) []n8nItems

func init() {
	n8nAINodeTypes = map[string]func(n *n8n, node *n8nNode, in n8nItems) []n8nItems{
		"agent":                aiContinuing((*n8n).agentNode),
		"chainLlm":             aiContinuing((*n8n).chainNode),
		"openAi":               (*n8n).openAINode,
		"informationExtractor": aiContinuing((*n8n).informationExtractorNode),
		"textClassifier":       (*n8n).textClassifierNode,
		"chainRetrievalQa":     (*n8n).retrievalQANode,
		"chainSummarization":   (*n8n).summarizationNode,
		"sentimentAnalysis":    (*n8n).sentimentNode,
		"chatTrigger":          (*n8n).chatTriggerNode,
		"vectorStoreInMemory":  (*n8n).vectorStoreNode,
		"vectorStorePinecone":  (*n8n).vectorStoreNode,
		"vectorStoreQdrant":    (*n8n).vectorStoreNode,
		"vectorStoreSupabase":  (*n8n).vectorStoreNode,
		"vectorStorePGVector":  (*n8n).vectorStoreNode,
		"manualChatTrigger":    (*n8n).chatTriggerNode,
	}
}

// aiConnections records the connections of a sub-node to the AI inputs
// of the nodes it serves.
func (n *n8n) aiConnections(from *n8nNode, kind string, list *importer.JV) {
	if !slices.Contains(aiKinds, kind) {
		n.Problem(from.where, list, "Unsupported connection",
			fmt.Sprintf("%q connections are not converted; main connections and the AI inputs %s are.", kind, strings.Join(aiKinds, ", ")))
		return
	}
	for _, out := range list.Items() {
		for _, c := range out.Items() {
			to := n.byName[c.Text("node")]
			if to == nil {
				n.Warn(from.where, c, "Connection to an unknown node", fmt.Sprintf("no node is named %q; the connection is left out.", c.Text("node")))
				continue
			}
			if to.ai == nil {
				to.ai = map[string][]*n8nNode{}
			}
			to.ai[kind] = append(to.ai[kind], from)
		}
	}
}

// subNodesLost reports the sub-nodes of a root that is not converted,
// which run only inside it: each is not converted either.
func (n *n8n) subNodesLost(root *n8nNode) {
	for _, kind := range aiKinds {
		for _, sub := range root.ai[kind] {
			if sub.lost || sub.disabled {
				continue
			}
			sub.lost, sub.conv = true, false
			if !n.hasError(sub) {
				n.Problem(sub.where, sub.j, "Sub-node not converted",
					fmt.Sprintf("it runs inside node %q, which is not converted (see its problem).", root.name))
			}
			n.subNodesLost(sub)
		}
	}
}

// hasError reports whether a node has an error of its own.
func (n *n8n) hasError(node *n8nNode) bool {
	for _, d := range n.Diags {
		if o, ok := d.Extra.(importer.Origin); ok && d.Severity == hcl.DiagError && o.Node == node.name {
			return true
		}
	}
	return false
}

// checkSubExpressions checks the expressions of a node's sub-nodes.
func (n *n8n) checkSubExpressions(node *n8nNode) bool {
	ok := true
	for _, kind := range aiKinds {
		for _, sub := range node.ai[kind] {
			ok = n.checkExpressions(sub, sub.params) && n.checkSubExpressions(sub) && ok
		}
	}
	return ok
}

// aiState is how many top-level blocks the AI nodes had written, so that
// a node that fails takes back what it wrote.
type aiState struct{ providers, collections, blocks, memories, flows int }

func (n *n8n) aiMark() aiState {
	return aiState{len(n.File.Providers), len(n.File.Collections), len(n.File.Blocks), len(n.File.Memories), len(n.File.Flows)}
}

// aiRollback takes back what a node that failed wrote of AI blocks, and
// its sub-nodes' conversion.
func (n *n8n) aiRollback(st aiState, node *n8nNode) {
	n.File.Providers, n.File.Collections = n.File.Providers[:st.providers], n.File.Collections[:st.collections]
	n.File.Blocks, n.File.Memories = n.File.Blocks[:st.blocks], n.File.Memories[:st.memories]
	n.File.Flows = n.File.Flows[:st.flows] // the tools' flows
	kept := map[string]bool{}
	for _, d := range n.File.Providers {
		kept[d.Block.Labels()[0]] = true
	}
	for k, p := range n.providers {
		if !kept[p] {
			delete(n.providers, k)
		}
	}
	var unconv func(*n8nNode)
	unconv = func(node *n8nNode) {
		for _, kind := range aiKinds {
			for _, sub := range node.ai[kind] {
				sub.conv = false
				unconv(sub)
			}
		}
	}
	unconv(node)
}
