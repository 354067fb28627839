package compiler

import (
	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// resolveCollection finds the collection a vector step names (collection
// = collection.NAME): a vector step names one, and no other step does.
func (c *compilation) resolveCollection(s *Step) hcl.Diagnostics {
	vector := blocks.IsVectorBlock(s.Block)
	if s.CollectionRef == nil {
		if vector && s.CollectionRange == (hcl.Range{}) { // an invalid one is reported by lang
			return lang.Error(s.DeclRange, "Missing collection",
				"Step %q uses the %s block, which names the collection it works on: give it collection = collection.%s, and declare collection %q { dimensions = N }.",
				s.Name, s.Block.Name, firstCollectionName(c.prog), firstCollectionName(c.prog))
		}
		return nil
	}
	if s.Block != nil && !vector {
		return lang.Error(s.CollectionRange, "Collection on a step that is not a vector step",
			"Step %q uses block %q; only vector_upsert, vector_delete and vector_search steps name a collection.", s.Name, s.Block.Name)
	}
	name := s.CollectionRef[1].(hcl.TraverseAttr).Name
	col := c.prog.CollectionsByName[name]
	if col == nil {
		return lang.Error(s.CollectionRef.SourceRange(), "Unknown collection",
			"Flow %q declares no collection named %q; its collections are %s. Declare one with collection %q { dimensions = N }.%s",
			c.prog.Flow.Name, name, listOrNone(lang.SortedKeys(c.prog.CollectionsByName)), name,
			lang.Suggest(name, lang.SortedKeys(c.prog.CollectionsByName)))
	}
	s.Collection = col
	return nil
}

func firstCollectionName(p *Program) string {
	if len(p.Collections) > 0 {
		return p.Collections[0].Name
	}
	return "NAME"
}
