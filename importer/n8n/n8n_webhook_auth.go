package n8n

import (
	"fmt"

	"github.com/flowctl/flowctl/importer"
)

// webhookAuth converts the Webhook node's authentication to its trigger's
// verify (n8n-nodes-base's Webhook/utils.js validateWebhookAuthentication):
// Basic Auth compares the request's Basic credentials with the
// httpBasicAuth credential's user and password (verify = "basic", a
// secret "user:password"); Header Auth compares the header the
// httpHeaderAuth credential names with its value (verify = "header", the
// name and the value secrets, as the credential holds both). It reports
// false, with a problem, for any other.
func (n *n8n) webhookAuth(node *n8nNode, w *n8nWebhook) bool {
	p := node.params
	auth := p.Text("authentication")
	kind := map[string]string{"basicAuth": "httpBasicAuth", "headerAuth": "httpHeaderAuth"}[auth]
	switch {
	case auth == "" || auth == "none":
		return true
	case kind == "":
		n.Problem(node.where, p.Get("authentication"), "Unsupported webhook authentication",
			fmt.Sprintf("n8n's %q is not converted: Basic Auth (verify = \"basic\") and Header Auth (verify = \"header\") are; a flowctl webhook verifies a signature of the body otherwise (verify = \"hmac\", \"github\", \"stripe\" or \"standard\"): write the trigger's verify for what its callers send.", auth))
		return false
	}
	cred := node.j.Get("credentials", kind)
	credName := cred.Text("name")
	if credName == "" {
		credName = cred.Text() // an old export names the credential only
	}
	if credName == "" {
		credName = kind
	}
	forWhat := func(part string) string {
		return fmt.Sprintf("the %s of n8n credential %q (%s) that the webhook's callers send", part, credName, kind)
	}
	if kind == "httpBasicAuth" {
		w.verify = "basic"
		w.secret = n.AddSecret(credName, fmt.Sprintf("the user and password of n8n credential %q (%s), as user:password, that the webhook's callers send", credName, kind), "")
		return true
	}
	w.verify = "header"
	w.secret = n.AddSecret(credName, forWhat("header value"), "")
	w.header = n.AddSecret(credName+" name", forWhat("header name"), "")
	return true
}

// webhookHeader is the header attribute of a trigger that verify =
// "header" converts: the secret that holds the header's name.
func webhookHeader(w *n8nWebhook) importer.Expr {
	return importer.Ref("secret", w.header)
}
