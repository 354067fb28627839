package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

func itoa(i int64) string   { return strconv.FormatInt(i, 10) }
func quote(s string) string { return strconv.Quote(s) }

// SensitiveText stands in for a sensitive value wherever values are shown.
const SensitiveText = "(sensitive)"

// typedValue is how values are stored: with their type, so that they come
// back as the same cty value.
type typedValue struct {
	Type  json.RawMessage `json:"type"`
	Value json.RawMessage `json:"value"`
}

// encodeValue encodes a known, unmarked value with its type.
func encodeValue(v cty.Value) (json.RawMessage, error) {
	if v.ContainsMarked() {
		return nil, fmt.Errorf("a marked value cannot be stored")
	}
	ty, err := ctyjson.MarshalType(v.Type())
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString(`{"type":`)
	buf.Write(ty)
	buf.WriteString(`,"value":`)
	if err := marshalValue(&buf, v); err != nil {
		return nil, err
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// decodeValue reverses encodeValue.
func decodeValue(raw json.RawMessage) (cty.Value, error) {
	var tv typedValue
	if err := json.Unmarshal(raw, &tv); err != nil {
		return cty.NilVal, err
	}
	ty, err := ctyjson.UnmarshalType(tv.Type)
	if err != nil {
		return cty.NilVal, err
	}
	return ctyjson.Unmarshal(tv.Value, ty)
}

// PlainJSON renders a value as plain JSON for people and events: sensitive
// values (anywhere inside) become "(sensitive)", null stays null.
func PlainJSON(v cty.Value) any {
	if v == cty.NilVal {
		return nil
	}
	if lang.IsSensitive(v) {
		if v.HasMark(lang.Sensitive) {
			return SensitiveText
		}
		return plainMarked(v)
	}
	return plain(v)
}

func plain(v cty.Value) any {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	b, err := ctyjson.Marshal(v, cty.DynamicPseudoType)
	if err != nil {
		return nil
	}
	var wrapped struct {
		Value any `json:"value"`
	}
	if json.Unmarshal(b, &wrapped) != nil {
		return nil
	}
	return wrapped.Value
}

// plainMarked renders a collection with sensitive parts element by element.
func plainMarked(v cty.Value) any {
	v, _ = v.Unmark()
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	ty := v.Type()
	switch {
	case ty.IsObjectType() || ty.IsMapType():
		out := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			out[k.AsString()] = PlainJSON(e)
		}
		return out
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		out := []any{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, PlainJSON(e))
		}
		return out
	}
	return SensitiveText
}

// redactor replaces the text of sensitive values in messages. It is safe
// for concurrent use.
type redactor struct {
	mu      sync.RWMutex
	secrets []string
	seen    map[string]bool
}

func (r *redactor) add(s string) {
	if len(s) < 3 { // shorter strings would blank out ordinary words
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	if !r.seen[s] {
		r.seen[s] = true
		r.secrets = append(r.secrets, s)
	}
}

// addValue adds every string inside a sensitive value.
func (r *redactor) addValue(v cty.Value) {
	v, _ = v.UnmarkDeep()
	if v.IsNull() || !v.IsKnown() {
		return
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		r.add(v.AsString())
	case ty.IsCollectionType() || ty.IsObjectType() || ty.IsTupleType():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			r.addValue(e)
		}
	}
}

func (r *redactor) redact(s string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, secret := range r.secrets {
		if strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, SensitiveText)
		}
	}
	return s
}
