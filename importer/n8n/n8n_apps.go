package n8n

import (
	"fmt"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/importer/n8n/apps"
)

// App nodes (Gmail, Google Sheets, Google Drive…) become steps that use
// a flow of the registry (importer/n8n/apps), written beside the
// imported flow: use = "flow.NAME", the node's parameters as the flow's
// inputs, the node's credential as a secret of the importing flow passed
// to the flow's access_token input. Each app is a converter here
// (n8n_apps_NAME.go) that reads the node's resource and operation, and
// the registry's flows of its operations; an operation it does not
// convert is an "Unsupported operation" naming the node and operation.

// appCall is a call of a registry flow for an app node.
type appCall struct {
	flow string // the registry flow, apps.Flow(flow)
	// cred is the node's credential type (gmailOAuth2), what the secret
	// holds (an OAuth2 access token…) and whether it is an OAuth2 token
	// that flowctl does not refresh.
	cred, holds string
	oauth2      bool
	// args are the flow's inputs, values in the scope the caller made
	// with appScope (each.value: the item the call is for).
	args []importer.Member
	// what says what the call does, for the step's comment.
	what string
}

// appScope is the scope of an app node's parameters: n8n reads them
// for each item, and the flow runs once for each item.
func (n *n8n) appScope(node *n8nNode, in n8nItems) *n8nScope {
	return n.scope(node, in, true)
}

// appStep writes the step of an app node, one call of the registry flow
// for each input item (n8n runs the operation for each item), and returns
// the node's items: the items each call gives, in order, each paired
// with the item its call was for.
func (n *n8n) appStep(node *n8nNode, in n8nItems, s *n8nScope, call appCall) []n8nItems {
	src := apps.Flow(call.flow)
	if src == nil {
		// A bug of the converter: it names a flow the registry lacks.
		panic("importer/n8n/apps has no flow " + call.flow)
	}
	token := n.appSecret(node, call)
	n.Beside(call.flow+apps.Suffix, src)
	b, body := importer.NewStep(node.step, "flow."+call.flow)
	body.SetAttributeRaw("for_each", importer.Clone(in.e))
	body.SetAttributeRaw("access_token", importer.Clone(importer.Ref("secret", token)))
	for _, a := range call.args {
		body.SetAttributeRaw(a.Name, importer.Clone(a.Value))
	}
	n.retry(node, body)
	n.dependsOn(body, in)
	s.flush()
	n.Step(fmt.Sprintf("%s: %s, once for each item (flow %s%s, beside this one)", n.nodeComment(node), call.what, call.flow, apps.Suffix), b)
	step := importer.Ref("step", node.step)
	items := importer.Join("flatten([for r in ", step, " : r.items])")
	paired := importer.Join("flatten([for k, r in ", step, " : [for e in r.items : k]])")
	return []n8nItems{pairedWith(items, in, paired)}
}

// appSecret is the secret of the node's credential: one for each
// credential, however many nodes use it.
func (n *n8n) appSecret(node *n8nNode, call appCall) string {
	cred := node.j.Get("credentials", call.cred)
	credName := cred.Text("name")
	if credName == "" {
		credName = call.cred
	}
	key := call.cred + "\x00" + cred.Text("id") + "\x00" + credName
	if got, ok := n.creds[key]; ok {
		return got[0]
	}
	sec := n.AddSecret(credName, fmt.Sprintf("%s of n8n credential %q (%s)", call.holds, credName, call.cred), "")
	n.creds[key] = []string{sec}
	if call.oauth2 {
		n.Warn(node.where, node.j.Get("credentials"), "OAuth2 access token",
			fmt.Sprintf("secret %s is an OAuth2 access token of credential %q, which the flow sends as it is: n8n refreshes the token when it expires, flowctl does not, so getting a fresh one is yours.", sec, credName))
	}
	return sec
}

// appOperation reads a node's resource and operation (the defaults when
// the node leaves them out) and reports one the app's converter does
// not convert, naming the node and the operation.
func (n *n8n) appOperation(node *n8nNode, app, defResource, defOperation string, converted map[string][]string) (resource, operation string, ok bool) {
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
