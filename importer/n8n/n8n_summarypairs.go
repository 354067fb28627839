package n8n

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// summarizePairs are the pairs of Summarize's items (v1 and v1.1, n8n's
// execute): one item of all the input items when the output is a single
// item, or when no fields split them into groups, paired with all of
// them; with groups (separate items), each item pairs with the items of
// its group, which the flow does not track.
func summarizePairs(node *n8nNode, in n8nItems, out []n8nItems) []n8nItems {
	split := false
	for _, f := range strings.Split(node.params.Text("fieldsToSplitBy"), ",") {
		if strings.TrimSpace(f) != "" {
			split = true
		}
	}
	if split && node.params.Text("options", "outputFormat") != "singleItem" {
		return out
	}
	for i := range out {
		prev := in
		out[i].prev, out[i].pairsAll = &prev, true
	}
	return out
}

// versionedParams are the node's parameters with its version
// (__version), for the n8n_code modes whose rules changed between
// versions.
func versionedParams(node *n8nNode) importer.Expr {
	params := *node.params
	params.Keys = append(slices.Clip(params.Keys), "__version")
	params.Obj = maps.Clone(params.Obj)
	params.Obj["__version"] = &importer.JV{Kind: 'n', Num: strconv.FormatFloat(node.version, 'f', -1, 64)}
	return importer.JsonLiteral(&params)
}
