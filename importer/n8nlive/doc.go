// Package n8nlive holds the test that checks the n8n cases of the import
// corpus against n8n itself: each workflow runs in n8n (n8n execute --id
// … --rawOutput) and, imported, in flowctl, against the same local HTTP
// server; the items of the nodes without outgoing connections must be
// the same, value by value, and the same as the case records. The cases
// started by a request (a Webhook, Chat Trigger or Form Trigger, which
// n8n execute does not start) run in n8n as a server (n8n start, the
// workflows published) and under flowctl serve: the answers to the same
// request must be the same, and the same as the case records.
//
// It needs n8n: FLOWCTL_N8N is the path of its n8n program, which .ci/run
// installs (the newest release whose engines range allows the machine's
// Node.js, cached in ~/.cache/flowctl/n8n) and gives to this test, run
// on its own with a long timeout (n8n takes tens of seconds to start).
// The test starts n8n's JavaScript task runner, which runs Code nodes,
// itself (testdata/runner.js says why).
// Without FLOWCTL_N8N the test is skipped, unless CI=true, where it
// fails.
package n8nlive
