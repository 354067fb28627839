package n8n

// googleAuth is the call of a Google app node's registry flow for its
// authentication: OAuth2 (oauthCred, the default from the versions
// converted) or a service account (googleApi), whose secret is then an
// access token of the service account, as an OAuth2 credential's is the
// account's; another (an expression) is refused.
func (n *n8n) googleAuth(node *n8nNode, app, oauthCred string) (appCall, bool) {
	p := node.params
	switch a := p.Text("authentication"); a {
	case "", "oAuth2":
		return appCall{cred: oauthCred, oauth2: true}, true
	case "serviceAccount":
		return appCall{cred: "googleApi", serviceAccount: true}, true
	default:
		n.Problem(node.where, p.Get("authentication"), "Unsupported credential",
			"the "+app+" node's authentication "+a+" is not converted; OAuth2 and a service account are.")
		return appCall{}, false
	}
}
