package gorun

import (
	"reflect"
	"time"
)

// shared are the addresses of the package variables an interpreter gets
// as they are: their identity matters (t.Location() == time.UTC) and
// interpreted code cannot change what they point to but by assigning
// through them, which Check refuses.
var shared = map[uintptr]bool{
	reflect.ValueOf(&time.UTC).Pointer():   true,
	reflect.ValueOf(&time.Local).Pointer(): true,
}

// ownVariables returns a package's symbols with every variable replaced
// by a copy that belongs to one interpreter: yaegi hands out the standard
// library's variables themselves, so without the copy a block could change
// base64.StdEncoding, io.EOF or a unicode table for every other block in
// the process (and, in process, for flowctl). Pointers, slices and maps
// are copied deeply, exported fields included; memo keeps two variables
// that point to one value (unicode.Categories["L"] and unicode.L) pointing
// to one copy.
func ownVariables(syms map[string]reflect.Value, memo map[uintptr]reflect.Value) map[string]reflect.Value {
	out := make(map[string]reflect.Value, len(syms))
	for name, v := range syms {
		if !v.CanAddr() || shared[v.Addr().Pointer()] {
			out[name] = v
			continue
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(deepCopy(v, memo))
		out[name] = c
	}
	return out
}

// deepCopy copies v: pointers to structs, slices and maps get new
// storage; exported fields of structs are copied deeply, unexported ones
// as they are (interpreted code cannot reach them).
func deepCopy(v reflect.Value, memo map[uintptr]reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return v
		}
		if c, ok := memo[v.Pointer()]; ok {
			return c
		}
		c := reflect.New(v.Elem().Type())
		memo[v.Pointer()] = c
		c.Elem().Set(deepCopy(v.Elem(), memo))
		return c
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		for i := range v.NumField() {
			if c.Field(i).CanSet() {
				c.Field(i).Set(deepCopy(v.Field(i), memo))
			}
		}
		return c
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			c.Index(i).Set(deepCopy(v.Index(i), memo))
		}
		return c
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			c.SetMapIndex(it.Key(), deepCopy(it.Value(), memo))
		}
		return c
	}
	return v
}
