package retrieval

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/flowctl/flowctl/blocks"
	"github.com/zclconf/go-cty/cty"
)

func collectionOf(call *blocks.Call) (blocks.Collection, error) {
	if call.Collection == nil {
		return nil, fmt.Errorf("the step names no collection: give it collection = collection.NAME")
	}
	return call.Collection, nil
}

func execVectorUpsert(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	c, err := collectionOf(call)
	if err != nil {
		return nil, err
	}
	name := c.Spec().Name
	for _, in := range []string{"id", "vector", "text", "metadata", "items"} {
		if call.Sensitive[in] {
			return nil, fmt.Errorf("collection %q: the %s to store comes from a secret or a sensitive value, and a collection keeps what it is given in the state, in the clear, for every search to return: %w",
				name, in, blocks.ErrFinal)
		}
	}
	var items []blocks.VectorItem
	if v := call.Inputs["id"]; !v.IsNull() {
		it, err := vectorItem(call.Inputs["id"], call.Inputs["vector"], call.Inputs["text"], call.Inputs["metadata"])
		if err != nil {
			return nil, fmt.Errorf("collection %q: %w", name, err)
		}
		items = append(items, it)
	} else if !call.Inputs["vector"].IsNull() || !call.Inputs["metadata"].IsNull() {
		return nil, fmt.Errorf("collection %q: an item given with vector or metadata needs an id", name)
	}
	if v := call.Inputs["items"]; !v.IsNull() {
		if !v.Type().IsListType() && !v.Type().IsTupleType() && !v.Type().IsSetType() {
			return nil, fmt.Errorf("collection %q: items is a list of { id, vector, text, metadata }, not a %s", name, v.Type().FriendlyName())
		}
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, e := it.Element()
			if e.IsNull() || !e.Type().IsObjectType() && !e.Type().IsMapType() {
				return nil, fmt.Errorf("collection %q: item %d is not an object { id, vector, text, metadata }", name, i)
			}
			get := func(k string) cty.Value {
				if e.Type().IsObjectType() {
					if !e.Type().HasAttribute(k) {
						return cty.NullVal(cty.DynamicPseudoType)
					}
					return e.GetAttr(k)
				}
				if e.HasIndex(cty.StringVal(k)).True() {
					return e.Index(cty.StringVal(k))
				}
				return cty.NullVal(cty.DynamicPseudoType)
			}
			if e.Type().IsObjectType() {
				for k := range e.Type().AttributeTypes() {
					if !slices.Contains([]string{"id", "vector", "text", "metadata"}, k) {
						return nil, fmt.Errorf("collection %q: item %d has the attribute %q; an item has id, vector, text and metadata", name, i, k)
					}
				}
			}
			item, err := vectorItem(get("id"), get("vector"), get("text"), get("metadata"))
			if err != nil {
				return nil, fmt.Errorf("collection %q: item %d: %w", name, i, err)
			}
			items = append(items, item)
		}
	}
	replace, err := filterOf(call.Inputs["replace"], "replace")
	if err != nil {
		return nil, fmt.Errorf("collection %q: %w", name, err)
	}
	if len(items) == 0 && len(replace) == 0 {
		return nil, fmt.Errorf("collection %q: nothing to upsert: give id and vector, or items", name)
	}
	if err := c.Upsert(ctx, items, replace); err != nil {
		return nil, err
	}
	ids := make([]cty.Value, len(items))
	for i, it := range items {
		ids[i] = cty.StringVal(it.ID)
	}
	return &blocks.Result{Outputs: map[string]cty.Value{
		"count": cty.NumberIntVal(int64(len(items))),
		"ids":   listOfStrings(ids),
	}}, nil
}

func execVectorDelete(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	c, err := collectionOf(call)
	if err != nil {
		return nil, err
	}
	var ids []string
	if v := call.Inputs["ids"]; !v.IsNull() {
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if e.IsNull() {
				return nil, fmt.Errorf("collection %q: ids has a null", c.Spec().Name)
			}
			ids = append(ids, e.AsString())
		}
	}
	where, err := filterOf(call.Inputs["where"], "where")
	if err != nil {
		return nil, fmt.Errorf("collection %q: %w", c.Spec().Name, err)
	}
	if call.Inputs["ids"].IsNull() && len(where) == 0 {
		return nil, fmt.Errorf("collection %q: vector_delete needs ids or a where filter (an empty filter would remove everything)", c.Spec().Name)
	}
	n, err := c.Delete(ctx, ids, where)
	if err != nil {
		return nil, err
	}
	return &blocks.Result{Outputs: map[string]cty.Value{"deleted": cty.NumberIntVal(int64(n))}}, nil
}

// vectorSearchExecutor runs vector_search; embed, when set, embeds a
// query given without a vector.
type vectorSearchExecutor struct{ embed blocks.QueryEmbedder }

var _ blocks.QueryEmbedderUser = vectorSearchExecutor{}

func (x vectorSearchExecutor) HasEmbedder() bool { return x.embed != nil }

func (x vectorSearchExecutor) WithEmbedder(qe blocks.QueryEmbedder) blocks.Executor {
	return vectorSearchExecutor{embed: qe}
}

func (x vectorSearchExecutor) Execute(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
	c, err := collectionOf(call)
	if err != nil {
		return nil, err
	}
	name := c.Spec().Name
	q := blocks.VectorQuery{Mode: call.Inputs["mode"].AsString()}
	if v := call.Inputs["vector"]; !v.IsNull() {
		if q.Vector, err = floats(v); err != nil {
			return nil, fmt.Errorf("collection %q: the query vector %w", name, err)
		}
	}
	if v := call.Inputs["query"]; !v.IsNull() {
		q.Query = v.AsString()
	}
	var usage *blocks.Usage
	if q.Vector == nil {
		if q.Query == "" {
			return nil, fmt.Errorf("collection %q: vector_search needs a query (a text, embedded with the step's model) or a vector", name)
		}
		if x.embed == nil {
			return nil, fmt.Errorf("collection %q: vector_search embeds its query with a model server, and this build has none: give it a vector", name)
		}
		if q.Vector, usage, err = x.embed.EmbedQuery(ctx, call, q.Query); err != nil {
			return &blocks.Result{Usage: usage}, fmt.Errorf("collection %q: embedding the query: %w", name, err)
		}
	}
	n, _ := call.Inputs["top_k"].AsBigFloat().Int64()
	q.TopK = int(n)
	if v := call.Inputs["min_score"]; !v.IsNull() {
		f, _ := v.AsBigFloat().Float64()
		q.MinScore = &f
	}
	if q.Filter, err = filterOf(call.Inputs["filter"], "filter"); err != nil {
		return nil, fmt.Errorf("collection %q: %w", name, err)
	}
	ms, err := c.Search(ctx, q)
	if err != nil {
		return &blocks.Result{Usage: usage}, err
	}
	matches := make([]cty.Value, len(ms))
	ids := make([]cty.Value, len(ms))
	texts := make([]cty.Value, len(ms))
	for i, m := range ms {
		meta := map[string]cty.Value{}
		for k, v := range m.Metadata {
			switch x := v.(type) {
			case string:
				meta[k] = cty.StringVal(x)
			case float64:
				meta[k] = cty.NumberFloatVal(x)
			case bool:
				meta[k] = cty.BoolVal(x)
			}
		}
		ids[i], texts[i] = cty.StringVal(m.ID), cty.StringVal(m.Text)
		matches[i] = cty.ObjectVal(map[string]cty.Value{
			"id": ids[i], "score": cty.NumberFloatVal(m.Score), "text": texts[i], "metadata": cty.ObjectVal(meta),
		})
	}
	out := cty.EmptyTupleVal
	if len(matches) > 0 {
		out = cty.TupleVal(matches)
	}
	return &blocks.Result{Outputs: map[string]cty.Value{"matches": out, "ids": listOfStrings(ids), "texts": listOfStrings(texts)}, Usage: usage}, nil
}

func listOfStrings(vs []cty.Value) cty.Value {
	if len(vs) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	return cty.ListVal(vs)
}

// vectorItem reads one item from its values.
func vectorItem(id, vector, text, metadata cty.Value) (blocks.VectorItem, error) {
	var it blocks.VectorItem
	if id.IsNull() || !id.Type().Equals(cty.String) && !id.Type().Equals(cty.Number) {
		return it, fmt.Errorf("an item needs an id, a string")
	}
	if id.Type().Equals(cty.Number) {
		it.ID = id.AsBigFloat().Text('f', -1)
	} else {
		it.ID = id.AsString()
	}
	if vector.IsNull() {
		return it, fmt.Errorf("item %q has no vector", it.ID)
	}
	v, err := floats(vector)
	if err != nil {
		return it, fmt.Errorf("the vector of item %q %w", it.ID, err)
	}
	it.Vector = v
	if !text.IsNull() {
		if !text.Type().Equals(cty.String) {
			return it, fmt.Errorf("the text of item %q is a %s, not a string", it.ID, text.Type().FriendlyName())
		}
		it.Text = text.AsString()
	}
	if it.Metadata, err = metadataOf(metadata); err != nil {
		return it, fmt.Errorf("the metadata of item %q: %w", it.ID, err)
	}
	return it, nil
}

// floats reads a list of numbers as float32s.
func floats(v cty.Value) ([]float32, error) {
	t := v.Type()
	if !t.IsListType() && !t.IsTupleType() {
		return nil, fmt.Errorf("is a %s, not a list of numbers", t.FriendlyName())
	}
	out := make([]float32, 0, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() || !e.Type().Equals(cty.Number) {
			return nil, fmt.Errorf("has an element that is not a number")
		}
		f, _ := e.AsBigFloat().Float64()
		if math.IsInf(float64(float32(f)), 0) {
			return nil, fmt.Errorf("has %s, beyond a float32", e.AsBigFloat().Text('g', 6))
		}
		out = append(out, float32(f))
	}
	return out, nil
}

// metadataOf reads an object or map of strings, numbers and booleans.
func metadataOf(v cty.Value) (map[string]any, error) {
	if v.IsNull() {
		return nil, nil
	}
	t := v.Type()
	if !t.IsObjectType() && !t.IsMapType() {
		return nil, fmt.Errorf("metadata is an object of strings, numbers and booleans, not a %s", t.FriendlyName())
	}
	out := map[string]any{}
	for k, e := range v.AsValueMap() {
		x, err := scalar(e)
		if err != nil {
			return nil, fmt.Errorf("%q %w", k, err)
		}
		if x != nil {
			out[k] = x
		}
	}
	return out, nil
}

func scalar(e cty.Value) (any, error) {
	if e.IsNull() {
		return nil, nil
	}
	switch {
	case e.Type().Equals(cty.String):
		return e.AsString(), nil
	case e.Type().Equals(cty.Number):
		f, _ := e.AsBigFloat().Float64()
		return f, nil
	case e.Type().Equals(cty.Bool):
		return e.True(), nil
	}
	return nil, fmt.Errorf("is a %s; metadata values are strings, numbers and booleans", e.Type().FriendlyName())
}

// filterOf reads a filter: an object whose attributes are each a value
// the metadata must equal, or a range { gt, gte, lt, lte }.
func filterOf(v cty.Value, what string) (blocks.Filter, error) {
	if v.IsNull() {
		return nil, nil
	}
	t := v.Type()
	if !t.IsObjectType() && !t.IsMapType() {
		return nil, fmt.Errorf("%s is an object of metadata conditions, such as { source = \"a.md\" }, not a %s", what, t.FriendlyName())
	}
	m := v.AsValueMap()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var f blocks.Filter
	for _, k := range keys {
		e := m[k]
		c := blocks.Condition{Key: k}
		if et := e.Type(); !e.IsNull() && (et.IsObjectType() || et.IsMapType()) {
			for op, b := range e.AsValueMap() {
				if b.IsNull() || !b.Type().Equals(cty.Number) {
					return nil, fmt.Errorf("%s: the bound %s of %q is not a number", what, op, k)
				}
				x, _ := b.AsBigFloat().Float64()
				switch op {
				case "gt":
					c.GT = &x
				case "gte":
					c.GTE = &x
				case "lt":
					c.LT = &x
				case "lte":
					c.LE = &x
				default:
					return nil, fmt.Errorf("%s: %q has the bound %q; a range has gt, gte, lt and lte", what, k, op)
				}
			}
			if c.GT == nil && c.GTE == nil && c.LT == nil && c.LE == nil {
				return nil, fmt.Errorf("%s: the range of %q has no bound", what, k)
			}
			f = append(f, c)
			continue
		}
		x, err := scalar(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %q %w", what, k, err)
		}
		if x == nil {
			return nil, fmt.Errorf("%s: %q is null", what, k)
		}
		c.Eq = x
		f = append(f, c)
	}
	return f, nil
}
