package lang

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// RootCollection is the root of collection.NAME, which only the
// collection argument of a vector step takes: a collection is not a
// value.
const RootCollection = "collection"

// CollectionDistances are the distances a collection ranks by.
var CollectionDistances = []string{"cosine", "euclidean", "dot"}

// Collection is a `collection "NAME"` block of a flow file: a named set
// of vectors kept by the state, which vector_upsert, vector_delete and
// vector_search steps name with collection = collection.NAME.
type Collection struct {
	Name      string
	NameRange hcl.Range
	DeclRange hcl.Range
	// Dimensions is the length of every vector of the collection.
	Dimensions int
	// Distance is one of CollectionDistances; "cosine" when not given.
	Distance    string
	Description string
}

var collectionSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "dimensions", Required: true}, {Name: "distance"}, {Name: "description"},
	},
}

// CollectionArguments are the arguments of a collection block, for the
// language server and the docs' tests.
func CollectionArguments() []string {
	var out []string
	for _, a := range collectionSchema.Attributes {
		out = append(out, a.Name)
	}
	return out
}

// maxDimensions bounds a collection's dimensions: pgvector indexes up to
// 2,000, and no embedding model gives more than a few thousand.
const maxDimensions = 16000

func decodeCollectionBlock(b *hcl.Block) (*Collection, hcl.Diagnostics) {
	c := &Collection{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange, Distance: "cosine"}
	diags := checkName("collection", c.Name, c.NameRange)
	content, d := b.Body.Content(collectionSchema)
	diags = append(diags, d...)
	if a, ok := content.Attributes["dimensions"]; ok {
		c.Dimensions, d = intAttr(a, 1)
		diags = append(diags, d...)
		if !d.HasErrors() && c.Dimensions > maxDimensions {
			diags = append(diags, Error(a.Expr.Range(), "Invalid dimensions",
				"A collection's dimensions are the length of its vectors, from 1 to %d; got %d.", maxDimensions, c.Dimensions)...)
		}
	}
	if a, ok := content.Attributes["distance"]; ok {
		c.Distance, d = stringAttr(a)
		diags = append(diags, d...)
		if !d.HasErrors() && !contains(CollectionDistances, c.Distance) {
			diags = append(diags, Error(a.Expr.Range(), "Invalid distance",
				"A collection's distance is one of %s; got %s.%s", strings.Join(CollectionDistances, ", "), quote(c.Distance),
				Suggest(c.Distance, CollectionDistances))...)
		}
	}
	if a, ok := content.Attributes["description"]; ok {
		c.Description, d = stringAttr(a)
		diags = append(diags, d...)
	}
	return c, diags
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// decodeCollectionRef reads a step's collection argument:
// collection.NAME, a reference to a collection block of the flow.
func decodeCollectionRef(a *hcl.Attribute) (hcl.Traversal, hcl.Diagnostics) {
	tr, d := hcl.AbsTraversalForExpr(a.Expr)
	if !d.HasErrors() && tr.RootName() == RootCollection && len(tr) == 2 {
		if _, ok := tr[1].(hcl.TraverseAttr); ok {
			return tr, nil
		}
	}
	return nil, Error(a.Expr.Range(), "Invalid collection",
		"The collection of a vector step is a reference to a collection block of the flow, such as collection = collection.docs, not a value of another kind.")
}

// Fingerprint identifies the collection for the cache keys of the steps
// that name it.
func (c *Collection) Fingerprint() string {
	return fmt.Sprintf("collection %s %d %s", c.Name, c.Dimensions, c.Distance)
}
