package n8n

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/importer/n8n/apps"
	"github.com/hashicorp/hcl/v2"
)

// App nodes (Gmail, Google Sheets, Google Drive…) become steps that use
// a flow of the registry (importer/n8n/apps), written beside the
// imported flow: use = "flow.NAME", for each item, the node's parameters
// as the flow's inputs. The flow declares the app's secret (an access
// token): the node's credential. Each app is a converter here
// (n8n_apps_NAME.go) that reads the node's resource and operation, and
// the registry's flows of its operations; an operation it does not
// convert is an "Unsupported operation" naming the node and operation.

// appCall is a call of a registry flow for an app node.
type appCall struct {
	flow string // the registry flow, apps.Flow(flow)
	// cred is the node's credential type (gmailOAuth2), whose token the
	// flow's secret holds; oauth2: an OAuth2 token, which flowctl does
	// not refresh.
	cred   string
	oauth2 bool
	// serviceAccount: a Google service account's credential (googleApi),
	// whose secret is an access token of the service account.
	serviceAccount bool
	// args are the flow's inputs, values in the scope the caller made
	// with appScope (each.value: the item the call is for).
	args []importer.Member
	// what says what the call does, for the step's comment.
	what string
	// once: n8n runs the operation once for all the items, reading its
	// parameters at the first item (Google Sheets): the step's for_each
	// is the first item alone (none when no item comes, as n8n does not
	// run the node then), the items an input of the flow when it takes
	// them (args).
	once bool
	// paired, when set, pairs the node's items with the input items (a
	// list of indexes); by default each pairs with the item its call was
	// for.
	paired importer.Expr
	// scopes are the other scopes of the node's parameters (Google Sheets'
	// document and sheet, read at the first item; its rows, for each
	// item), flushed with the step's.
	scopes []*n8nScope
}

// appScope is the scope of an app node's parameters: each.value, the
// item of the call (the first item when once).
func (n *n8n) appScope(node *n8nNode, in n8nItems) *n8nScope {
	return n.scope(node, in, true)
}

// appStep writes the step of an app node, one call of the registry flow
// for each input item (n8n runs most operations for each item), or one
// call for all (call.once), and returns the node's items: the items each
// call gives, in order, each paired with the item its call was for.
func (n *n8n) appStep(node *n8nNode, in n8nItems, s *n8nScope, call appCall) []n8nItems {
	src := apps.Flow(call.flow)
	if src == nil {
		// A bug of the converter: it names a flow the registry lacks.
		panic("importer/n8n/apps has no flow " + call.flow)
	}
	s.flush()
	for _, o := range call.scopes {
		o.flush()
	}
	// A node with a problem becomes a step that fails with it: the
	// registry's flow, and the app's secret, are not written for it.
	if n.nodeFailed(node) || !n.appSecret(node, call) {
		return nil
	}
	n.Beside(call.flow+apps.Suffix, src)
	for _, b := range apps.Blocks(call.flow) {
		n.Beside(path.Join("blocks", b+apps.BlockSuffix), apps.Block(b))
	}
	b, body := importer.NewStep(node.step, "flow."+call.flow)
	forEach := in.e
	if call.once {
		forEach = importer.Call("slice", in.e, importer.Code("0"), importer.Call("min", importer.Code("1"), importer.Call("length", in.e)))
	}
	body.SetAttributeRaw("for_each", importer.Clone(forEach))
	for _, a := range call.args {
		body.SetAttributeRaw(a.Name, importer.Clone(a.Value))
	}
	n.retry(node, body)
	n.dependsOn(body, in)
	times := "once for each item"
	if call.once {
		times = "once for all the items"
	}
	n.Step(fmt.Sprintf("%s: %s, %s (flow %s%s, beside this one)", n.nodeComment(node), call.what, times, call.flow, apps.Suffix), b)
	step := importer.Ref("step", node.step)
	items := importer.Join("flatten([for r in ", step, " : r.items])")
	paired := call.paired
	if paired == nil {
		paired = importer.Join("flatten([for k, r in ", step, " : [for e in r.items : k]])")
	}
	return []n8nItems{pairedWith(items, in, paired)}
}

// appSecret checks the node's credential against the app's secret, which
// the registry's flows read: one credential of an app for the whole
// workflow (its nodes read one token), reported once. The flow declares
// the secret too, under the same name, so that it is set as the flow's
// (--secret NAME=…, or the environment variable they share) and a run
// without it fails before any step runs.
func (n *n8n) appSecret(node *n8nNode, call appCall) bool {
	secrets := apps.Secrets(call.flow)
	if len(secrets) == 0 {
		return true
	}
	sec := secrets[0]
	cred := node.j.Get("credentials", call.cred)
	credName := cred.Text("name")
	if credName == "" {
		credName = call.cred
	}
	key := "app\x00" + sec.Name
	this := cred.Text("id") + "\x00" + credName
	if got, ok := n.creds[key]; ok {
		if got[0] != this {
			n.Problem(node.where, orParams(cred, node), "Several credentials of one app",
				fmt.Sprintf("the node uses n8n credential %q, node %q credential %q: the registry's flows read one token, secret %s (%s), for all the workflow's nodes of the app.", credName, got[2], got[1], sec.Name, sec.Env))
			return false
		}
		return true
	}
	// A credential of several fields (WordPress's site, user and
	// password) is as many secrets.
	for _, o := range secrets {
		if got := n.AddSecret(o.Name, o.Description, ""); got != o.Name {
			n.Problem(node.where, orParams(cred, node), "Several credentials of one app",
				fmt.Sprintf("the flow has another secret named %s, the secret of the registry's flow %s.", o.Name, call.flow))
			return false
		}
	}
	n.creds[key] = []string{this, credName, node.name}
	if call.serviceAccount {
		n.Warn(node.where, orParams(cred, node), "Service account access token",
			fmt.Sprintf("n8n credential %q (googleApi, a Google service account) is secret %s of flow %s, an access token of the service account (gcloud auth print-access-token --impersonate-service-account=EMAIL, with the user it acts for when the credential impersonates one), read from %s: n8n signs a new token with the account's key for each run, flowctl sends the one given, which expires after an hour.", credName, sec.Name, call.flow, sec.Env))
	}
	if call.oauth2 {
		n.Warn(node.where, orParams(cred, node), "OAuth2 access token",
			fmt.Sprintf("n8n credential %q (%s) is secret %s of flow %s, an OAuth2 access token, read from %s: the flow sends it as it is, n8n refreshes the token when it expires, flowctl does not, so getting a fresh one is yours.", credName, call.cred, sec.Name, call.flow, sec.Env))
	}
	return true
}

// appOperation reads a node's resource and operation (the defaults when
// the node leaves them out) and reports one the app's converter does
// not convert, naming the node and the operation.
func (n *n8n) appOperation(node *n8nNode, app, defResource, defOperation string, converted map[string][]string) (resource, operation string, ok bool) {
	if loop := n.batched[node]; loop != "" {
		n.Problem(node.where, node.j, "Unsupported loop",
			fmt.Sprintf("the node is in loop %q, which runs it batch by batch, and it takes all the items of a batch at once (or reads its spreadsheet at the batch's first item); the flow makes the loop one pass over all the items, which would not give what n8n gives.", loop))
		return "", "", false
	}
	resource, operation = node.params.Text("resource"), node.params.Text("operation")
	if resource == "" {
		resource = defResource
	}
	if operation == "" {
		operation = defOperation
	}
	if slices.Contains(converted[resource], operation) {
		return resource, operation, true
	}
	at := node.params.Get("operation")
	if at == nil {
		at = node.params
	}
	var list []string
	for _, r := range importer.SortedKeys(converted) {
		for _, o := range converted[r] {
			list = append(list, r+" "+o)
		}
	}
	n.Problem(node.where, at, "Unsupported operation",
		fmt.Sprintf("the %s node's %s %s operation is not converted; %s are.", app, resource, operation, strings.Join(list, ", ")))
	return "", "", false
}

// appPerItem reports whether a node is an app node, and whether it runs
// its operation for each item alone, so that a loop over batches of
// items gives what one pass over them all gives (loopNotOnePass); one
// that does not is refused in a loop (appOperation), the loop is not.
func appPerItem(node *n8nNode) (app, perItem bool) {
	switch node.typ {
	case "gmail", "googleDrive", "googleDocs", "googleCalendar", "telegram", "slack", "wordpress", "notion", "mattermost", "discord", "todoist":
		return true, true
	case "airtable":
		return true, airtablePerItem(node)
	case "googleSheets":
		// Get Row(s) from v4.2, on a spreadsheet and sheet the node names
		// (n8n reads them at the batch's first item).
		op := node.params.Text("operation")
		_, doc := rlValue(node.params.Get("documentId"))
		_, sheet := rlValue(node.params.Get("sheetName"))
		literal := func(v *importer.JV) bool { return v != nil && (v.Kind != 's' || !strings.HasPrefix(v.Str, "=")) }
		return true, (op == "" || op == "read") && node.version > 4.1 && literal(doc) && literal(sheet)
	}
	return false, false
}

// nodeFailed reports whether an error was reported at the node (its JSON
// path or one under it).
func (n *n8n) nodeFailed(node *n8nNode) bool {
	for _, d := range n.Diags {
		o, ok := d.Extra.(importer.Origin)
		if d.Severity == hcl.DiagError && ok && o.File == n.Src.Name && (o.Path == node.j.Ptr || strings.HasPrefix(o.Path, node.j.Ptr+"/")) {
			return true
		}
	}
	return false
}
