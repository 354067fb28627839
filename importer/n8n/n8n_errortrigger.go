package n8n

// The Error Trigger is not converted: what it gives its workflow, a flow
// trigger cannot give. Its diagnostic says what a flow can say instead.

// unsupportedWhy says why a node type is not converted, where more than
// its type can say ("" or a sentence after a space).
func unsupportedWhy(node *n8nNode) string {
	if node.fullType == n8nPrefix+"errorTrigger" {
		return " n8n runs a workflow that starts with an Error Trigger when another workflow, one that names it as its Error Workflow in its settings, fails, and gives it the failed execution's error message, stack and last node; a flow's on_run trigger (on_run { flow = \"NAME\", status = [\"failed\"] }) starts a run when a run of flow NAME fails, but gives the run's id, flow, status and outputs, not its error: write that trigger on the flow, with inputs from run."
	}
	return ""
}
