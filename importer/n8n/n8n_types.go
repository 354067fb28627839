package n8n

import (
	"slices"
	"strings"
)

// n8nNodeTypes converts each supported node type (without the
// n8n-nodes-base. prefix): it writes the node's steps and returns the
// items of each of its outputs.
var n8nNodeTypes map[string]func(n *n8n, node *n8nNode, in n8nItems) []n8nItems

func init() {
	n8nNodeTypes = map[string]func(n *n8n, node *n8nNode, in n8nItems) []n8nItems{
		"manualTrigger":    (*n8n).manualTrigger,
		"scheduleTrigger":  (*n8n).scheduleTrigger,
		"httpRequest":      (*n8n).httpRequestOf,
		"openAi":           (*n8n).legacyOpenAINode,
		"code":             (*n8n).codeNode,
		"set":              (*n8n).setNode,
		"if":               (*n8n).ifNode,
		"filter":           (*n8n).filterNode,
		"merge":            (*n8n).mergeNode,
		"splitOut":         (*n8n).splitOutNode,
		"aggregate":        (*n8n).aggregateNode,
		"limit":            (*n8n).limitNode,
		"sort":             (*n8n).sortNode,
		"noOp":             (*n8n).noOpNode,
		"wait":             (*n8n).waitNode,
		"switch":           (*n8n).switchNode,
		"stopAndError":     (*n8n).stopAndErrorNode,
		"splitInBatches":   (*n8n).splitInBatches,
		"postgres":         (*n8n).postgresNode,
		"webhook":          (*n8n).webhookNode,
		"cron":             (*n8n).cronNode,
		"interval":         (*n8n).intervalNode,
		"formTrigger":      (*n8n).formTriggerNode,
		"respondToWebhook": (*n8n).respondNode,
		"function":         (*n8n).functionNode,
		"functionItem":     (*n8n).functionItemNode,
		"removeDuplicates": (*n8n).removeDuplicatesNode,
		"renameKeys":       (*n8n).renameKeysNode,
		"summarize":        (*n8n).summarizeNode,
		"itemLists":        (*n8n).itemListsNode,
		"compareDatasets":  (*n8n).compareDatasetsNode,
		"telegramTrigger":  (*n8n).telegramTriggerNode,
		// Polling triggers: a schedule, a memory and a registry poll flow (n8n_poll.go).
		"airtableTrigger":     (*n8n).airtableTriggerNode,
		"googleSheetsTrigger": (*n8n).googleSheetsTriggerNode,
		"gmailTrigger":        (*n8n).gmailTriggerNode,
		"googleDriveTrigger":  (*n8n).googleDriveTriggerNode,
		// App triggers a service calls as a webhook (n8n_hooks.go).
		"githubTrigger":    (*n8n).appHookNode,
		"stripeTrigger":    (*n8n).appHookNode,
		"chargebeeTrigger": (*n8n).appHookNode,
		"postmarkTrigger":  (*n8n).appHookNode,
		"jiraTrigger":      (*n8n).appHookNode,
		"twilioTrigger":    (*n8n).appHookNode,
		"gitlabTrigger":    (*n8n).appHookNode,
		"netlifyTrigger":   (*n8n).appHookNode,
		"gmail":            (*n8n).gmailNode,
		"telegram":         (*n8n).telegramNode,
		"slack":            (*n8n).slackNode,
		"airtable":         (*n8n).airtableNode,
		"googleSheets":     (*n8n).googleSheetsNode,
		"googleDrive":      (*n8n).googleDriveNode,
		"googleDocs":       (*n8n).googleDocsNode,
		"googleCalendar":   (*n8n).googleCalendarNode,
		"wordpress":        (*n8n).wordpressNode,
		"extractFromFile":  (*n8n).extractFromFile,
		"convertToFile":    (*n8n).convertToFile,
		"notion":           (*n8n).notionNode,
		"mattermost":       (*n8n).mattermostNode,
		"discord":          (*n8n).discordNode,
		"todoist":          (*n8n).todoistNode,
		"emailSend":        (*n8n).emailSendNode,
		"emailReadImap":    (*n8n).emailReadImapNode,
		"html":             (*n8n).htmlNode,
		"markdown":         (*n8n).markdownNode,
		"htmlExtract":      (*n8n).htmlExtractNode,
		"xml":              (*n8n).xmlNode,
		// A sub-workflow's trigger, and the node that runs one.
		"executeWorkflowTrigger": (*n8n).executeWorkflowTrigger,
		"executeWorkflow":        (*n8n).executeWorkflowNode,
	}
	registerFileNodes()
}

// supportedN8N lists the node types converted, for messages.
func supportedN8N() string {
	var names []string
	for k := range n8nNodeTypes {
		if binaryNodes[k] == "" && hostFileNodes[k] == "" {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return "(" + strings.Join(names, ", ") + ")"
}
