package n8n

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// n8n's polling triggers (Gmail, Google Drive, Airtable, Google Sheets) run on
// their Poll Times, keep what they have seen in the workflow's static
// data and start the workflow only when a poll gives items. Each becomes
// a schedule for each poll time, a memory holding what n8n keeps (stored
// when a run succeeds), and a step calling the registry's flow of the
// poll (importer/n8n/apps) with the memory as its state: the node's items
// are the flow's, none when the poll finds nothing, so that no step after
// it runs; the memory takes the state the flow gives.

// pollTrigger writes the schedules, the memory and the step of a polling
// trigger node, whose parameters s reads (in: one empty item), and
// returns the node's items.
func (n *n8n) pollTrigger(node *n8nNode, in n8nItems, s *n8nScope, call appCall) []n8nItems {
	times := node.params.Items("pollTimes", "item")
	if node.params.Get("pollTimes") == nil {
		// The parameter's default: every minute.
		times = []*importer.JV{{Kind: 'o', Obj: map[string]*importer.JV{"mode": {Kind: 's', Str: "everyMinute"}}, Keys: []string{"mode"}, Ptr: node.params.Ptr, Rng: node.params.Rng}}
	}
	if len(times) == 0 {
		n.Problem(node.where, orParams(node.params.Get("pollTimes"), node), "Missing trigger times", "the trigger has no poll time, so n8n never polls.")
		return nil
	}
	var crons []string
	for _, t := range times {
		cron, ok := n.cronTime(node, t)
		if !ok {
			return nil
		}
		crons = append(crons, cron)
	}
	tz := n.scheduleTimezone(node, false)
	mem := n.Name("memory", node.name+" state", "state")
	call.args = append(call.args, importer.Member{Name: "state", Value: importer.Ref("memory", mem)})
	items := n.appStep(node, in, s, call)
	if items == nil {
		return nil
	}
	// The step runs once a poll (for the one empty item).
	if d := &n.File.Steps[len(n.File.Steps)-1]; len(d.Comment) == 1 {
		d.Comment[0] = strings.Replace(d.Comment[0], ", once for each item (", ", once a poll (", 1)
	}
	for i, cron := range crons {
		b := hclwrite.NewBlock("schedule", []string{n.Name("schedule", node.name+fmt.Sprintf(" %d", i+1), "schedule")})
		b.Body().SetAttributeValue("cron", cty.StringVal(cron))
		if tz != "" {
			b.Body().SetAttributeValue("timezone", cty.StringVal(tz))
		}
		n.File.Schedules = append(n.File.Schedules, importer.Decl{Comment: []string{fmt.Sprintf("%s, poll time %d", n.nodeComment(node), i+1)}, Block: b})
	}
	b := hclwrite.NewBlock("memory", []string{mem})
	b.Body().SetAttributeRaw("type", importer.Clone(importer.Code("any")))
	b.Body().SetAttributeRaw("default", importer.Clone(importer.Code("null")))
	b.Body().SetAttributeRaw("value", importer.Clone(importer.Code(fmt.Sprintf("step.%s[0].state", node.step))))
	b.Body().SetAttributeValue("description", cty.StringVal(fmt.Sprintf("What n8n node %q keeps in the workflow's static data between polls (null before the first)", node.name)))
	n.File.Memories = append(n.File.Memories, importer.Decl{Comment: []string{n.nodeComment(node)}, Block: b})
	n.File.Header = append(n.File.Header, fmt.Sprintf("%s polls on its schedules: its items are what is new since memory %s.", n.nodeComment(node), mem))
	return items
}

// pollItem is the one empty item a polling trigger's parameters are read
// at (n8n reads them at item 0, without input).
var pollItem = n8nItems{e: importer.Code("[{}]")}

// gmailTriggerNode is the Gmail Trigger (GmailTrigger.node.js), Simplify
// on: the filters Search, Sender, Read Status, Label Names or IDs,
// Include Spam and Trash and Include Drafts. Simplify off is refused: n8n
// parses each raw message with mailparser, which needs Node.
func (n *n8n) gmailTriggerNode(node *n8nNode, _ n8nItems) []n8nItems {
	p := node.params
	if a := p.Text("authentication"); a != "" && a != "oAuth2" {
		n.Problem(node.where, p.Get("authentication"), "Unsupported credential",
			"the Gmail Trigger's "+a+" authentication is not converted; OAuth2 is.")
		return nil
	}
	if e := p.Text("event"); e != "" && e != "messageReceived" {
		n.Problem(node.where, p.Get("event"), "Unsupported option", fmt.Sprintf("the Gmail Trigger's event %q is not converted; Message Received is.", e))
		return nil
	}
	if v := p.Get("simple"); v != nil && !(v.Kind == 'b' && v.Bool) {
		n.Problem(node.where, v, "Unsupported option",
			"the Gmail Trigger with Simplify off is not converted: n8n parses each raw message with mailparser (its text, HTML, addresses, header lines and attachments as binary data), a library that needs Node, which a js block does not have; with Simplify on the trigger gives each message's metadata.")
		return nil
	}
	if opts := p.Get("options"); opts != nil && len(opts.Keys) > 0 {
		n.Problem(node.where, opts.Get(opts.Keys[0]), "Unsupported option",
			fmt.Sprintf("the Gmail Trigger's option %s is not converted: it applies to the raw messages of Simplify off (with Simplify on n8n sends it in the list's query).", opts.Keys[0]))
		return nil
	}
	s := n.appScope(node, pollItem)
	call := appCall{flow: "gmail_message_poll", cred: "gmailOAuth2", oauth2: true, what: "lists the messages received since the last poll"}
	// Drafts are left out from version 1.2 unless Include Drafts, given
	// up to 1.1 unless it is off; from 1.3, sent messages not in the inbox.
	var drafts importer.Expr = importer.Code(fmt.Sprint(node.version <= 1.1))
	if node.version > 1.2 {
		call.args = append(call.args, importer.Member{Name: "skip_sent", Value: importer.Code("true")})
	}
	f := p.Get("filters")
	if f != nil {
		for _, k := range f.Keys {
			v := f.Get(k)
			if k == "includeDrafts" {
				drafts = s.value(v, "include_drafts")
				call.args = append(call.args, importer.Member{Name: "include_drafts", Value: drafts})
				continue
			}
			if known, ok := n.gmailFilter(node, s, &call, k, v); !ok {
				return nil
			} else if !known {
				n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the Gmail Trigger's filter %s is not converted; Search, Sender, Read Status, Label Names or IDs, Include Spam and Trash and Include Drafts are.", k))
				return nil
			}
		}
	}
	call.args = append(call.args, importer.Member{Name: "drafts", Value: drafts})
	return n.pollTrigger(node, pollItem, s, call)
}

// googleDriveTriggerNode is the Google Drive Trigger
// (GoogleDriveTrigger.node.js) on a specific folder: files or folders
// created or changed in it, of the File Type option. A specific file and
// Watch Folder Updated are refused.
func (n *n8n) googleDriveTriggerNode(node *n8nNode, _ n8nItems) []n8nItems {
	p := node.params
	if a := p.Text("authentication"); a != "" && a != "oAuth2" {
		n.Problem(node.where, p.Get("authentication"), "Unsupported credential",
			"the Google Drive Trigger's "+a+" authentication is not converted; OAuth2 is.")
		return nil
	}
	if on := p.Text("triggerOn"); on != "specificFolder" {
		n.Problem(node.where, orParams(p.Get("triggerOn"), node), "Unsupported option",
			fmt.Sprintf("the Google Drive Trigger on %q is not converted; on a specific folder is.", on))
		return nil
	}
	event := p.Get("event")
	switch e := p.Text("event"); {
	case event != nil && (event.Kind != 's' || strings.HasPrefix(event.Str, "=")):
		n.Problem(node.where, event, "Unsupported expression", "Watch For is converted when it is a literal.")
		return nil
	case e == "watchFolderUpdated":
		n.Problem(node.where, event, "Unsupported option", "Watch For Watch Folder Updated is not converted; File Created, File Updated, Folder Created and Folder Updated are.")
		return nil
	}
	mode, folder := rlValue(p.Get("folderToWatch"))
	if folder == nil || folder.Kind != 's' || strings.HasPrefix(folder.Str, "=") {
		n.Problem(node.where, orParams(p.Get("folderToWatch"), node), "Unsupported option", "the folder to watch is converted when it is a literal (from the list, by URL or by ID).")
		return nil
	}
	id := folder.Str
	if mode == "url" || strings.Contains(id, "/") {
		id = driveExtractID(id)
	}
	s := n.appScope(node, pollItem)
	call := appCall{flow: "google_drive_file_poll", cred: "googleDriveOAuth2Api", oauth2: true, what: "lists the files new in the folder since the last poll",
		args: []importer.Member{{Name: "folder", Value: importer.Str(id)}, {Name: "event", Value: importer.Str(p.Text("event"))}}}
	if opts := p.Get("options"); opts != nil {
		for _, k := range opts.Keys {
			v := opts.Get(k)
			if k != "fileType" || v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
				n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the Google Drive Trigger's option %s is converted when it is File Type, a literal.", k))
				return nil
			}
			call.args = append(call.args, importer.Member{Name: "file_type", Value: importer.Str(v.Str)})
		}
	}
	return n.pollTrigger(node, pollItem, s, call)
}

// driveExtractID is n8n's extractId (Drive's v1 GenericFunctions.js): the
// ID in a document's URL (after /d/, 25 or more of [-\w]) or a folder's
// (after /folders/), else the text.
func driveExtractID(url string) string {
	if strings.Contains(url, "/d/") {
		if m := driveIDPattern.FindString(url); m != "" {
			return m
		}
		return url
	}
	if _, after, ok := strings.Cut(url, "/folders/"); ok {
		// JS's split('/folders/')[1]: up to a next "/folders/".
		before, _, _ := strings.Cut(after, "/folders/")
		return before
	}
	return url
}

// driveIDPattern is extractId's ID in a document's URL.
var driveIDPattern = regexp.MustCompile(`[-\w]{25,}`)

// airtableTriggerNode is the Airtable Trigger (AirtableTrigger.node.js):
// the records whose Trigger Field is after the last poll, with the
// Formula and View options. Download Attachments (binary data) and the
// Fields option (sent in qs's bracket form) are refused.
func (n *n8n) airtableTriggerNode(node *n8nNode, _ n8nItems) []n8nItems {
	p := node.params
	call := appCall{flow: "airtable_record_poll", what: "lists the records after the last poll"}
	// The node's default authentication is the API key.
	switch a := p.Text("authentication"); a {
	case "", "airtableApi", "airtableTokenApi":
		call.cred = a
		if a == "" {
			call.cred = "airtableApi"
		}
	case "airtableOAuth2Api":
		call.cred, call.oauth2 = a, true
	default:
		n.Problem(node.where, p.Get("authentication"), "Unsupported credential",
			fmt.Sprintf("the Airtable Trigger's %s authentication is not converted; an API key, an access token and OAuth2 are.", a))
		return nil
	}
	if v := p.Get("downloadAttachments"); v != nil && !(v.Kind == 'b' && !v.Bool) {
		n.Problem(node.where, v, "Unsupported option", "the Airtable Trigger's Download Attachments is not converted: the attachments are n8n's binary data, which a flow's items (JSON) do not carry.")
		return nil
	}
	s := n.appScope(node, pollItem)
	base := n.locatorValue(node, s, p.Get("baseId"), "base", airtableBaseURL, "")
	if base == nil {
		return nil
	}
	table := n.locatorValue(node, s, p.Get("tableId"), "table", airtableTableURL, "")
	if table == nil {
		return nil
	}
	field := p.Get("triggerField")
	if field == nil || field.Kind == 's' && field.Str == "" {
		n.Problem(node.where, orParams(field, node), "Missing parameter", "the Airtable Trigger has no Trigger Field; n8n's formula names none and fails on it.")
		return nil
	}
	call.args = []importer.Member{{Name: "base", Value: base}, {Name: "table", Value: table}, {Name: "trigger_field", Value: s.textValue(field, "trigger_field")}}
	opts := p.Get("additionalFields")
	for _, k := range keysOf(opts) {
		v := opts.Get(k)
		switch {
		case v.Kind == 's' && v.Str == "":
			// n8n leaves an empty option out.
		case k == "formula" || k == "viewId":
			name := map[string]string{"formula": "formula", "viewId": "view"}[k]
			call.args = append(call.args, importer.Member{Name: name, Value: s.textValue(v, name)})
		default:
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the Airtable Trigger's option %s is not converted; Formula and View ID are.", k))
			return nil
		}
	}
	return n.pollTrigger(node, pollItem, s, call)
}

// googleSheetsTriggerNode is the Google Sheets Trigger
// (GoogleSheetsTrigger.node.js), Row Added, with the header in row 1 (no
// Data Location on Sheet) and the Value Render and DateTime Render
// options. The updates (Row Updated, Row Added or Updated: a comparison
// of the revisions Drive exports as a spreadsheet) are refused.
func (n *n8n) googleSheetsTriggerNode(node *n8nNode, _ n8nItems) []n8nItems {
	p := node.params
	if a := p.Text("authentication"); a != "" && a != "triggerOAuth2" {
		n.Problem(node.where, p.Get("authentication"), "Unsupported credential",
			"the Google Sheets Trigger's "+a+" authentication is not converted; OAuth2 is.")
		return nil
	}
	if e := p.Text("event"); e != "rowAdded" {
		if e == "" {
			e = "anyUpdate" // the node's default
		}
		n.Problem(node.where, orParams(p.Get("event"), node), "Unsupported option",
			fmt.Sprintf("the Google Sheets Trigger's event %s is not converted (n8n compares the revisions Drive exports as a spreadsheet file); Row Added is.", e))
		return nil
	}
	s := n.appScope(node, pollItem)
	doc, ok := n.sheetsDocument(node, s)
	if !ok {
		return nil
	}
	sheet, by, ok := n.sheetsSheet(node, s)
	if !ok {
		return nil
	}
	call := appCall{flow: "google_sheets_row_poll", cred: "googleSheetsTriggerOAuth2Api", oauth2: true, what: "lists the rows added since the last poll",
		args: []importer.Member{{Name: "document_id", Value: doc}, {Name: "sheet", Value: sheet}}}
	if by != "id" {
		call.args = append(call.args, importer.Member{Name: "sheet_by", Value: importer.Str(by)})
	}
	opts := p.Get("options")
	for _, k := range keysOf(opts) {
		v := opts.Get(k)
		name := map[string]string{"valueRender": "value_render", "dateTimeRenderOption": "date_render"}[k]
		if name == "" {
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the Google Sheets Trigger's option %s is not converted; Value Render and DateTime Render are (the data where n8n looks by default: the header in row 1).", k))
			return nil
		}
		call.args = append(call.args, importer.Member{Name: name, Value: s.textValue(v, name)})
	}
	return n.pollTrigger(node, pollItem, s, call)
}
