package importer

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/hashicorp/hcl/v2"
)

// jv is a JSON value of a source file, with the JSON Pointer and the
// source range it was read from. Objects keep their members in the order
// the file gives them, so that what is generated from them reads in the
// same order.
type JV struct {
	Kind byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	Str  string
	Num  string // a number as written
	Bool bool
	Keys []string
	Obj  map[string]*JV
	Arr  []*JV
	Ptr  string
	Rng  hcl.Range
}

// source is one file given to import.
type Source struct {
	Name  string
	Bytes []byte
	Root  *JV
	lines []int // byte offset of the start of each line
}

// parseSource reads a JSON file into a tree of jv. A file that is not JSON
// is one diagnostic at the place it goes wrong.
func ParseSource(name string, src []byte) (*Source, hcl.Diagnostics) {
	s := &Source{Name: name, Bytes: src, lines: []int{0}}
	for i, c := range src {
		if c == '\n' {
			s.lines = append(s.lines, i+1)
		}
	}
	// As n8n reads it (JavaScript's JSON.parse): a name given twice takes
	// the last value, and a lone surrogate escape (\udc80) is read as
	// U+FFFD.
	d := jsontext.NewDecoder(bytes.NewReader(src), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	root, err := s.read(d, 0)
	if err == nil {
		if _, err2 := d.ReadToken(); err2 != io.EOF {
			err = errors.New("there is more after the JSON value")
			if err2 != nil {
				err = err2
			}
		}
	}
	if err != nil {
		off := int(d.InputOffset())
		var se *jsontext.SyntacticError
		if errors.As(err, &se) {
			off = int(se.ByteOffset)
		}
		msg := err.Error()
		if se != nil && se.Err != nil {
			msg = se.Err.Error()
		}
		rng := s.rangeOf(off, off)
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid JSON",
			Detail:   "The file is not valid JSON: " + msg + ".",
			Subject:  &rng,
		}}
	}
	s.Root = root
	return s, nil
}

// read reads the next value, whose pointer the decoder's stack gives.
func (s *Source) read(d *jsontext.Decoder, depth int) (*JV, error) {
	if depth > 256 {
		return nil, errors.New("the JSON nests more than 256 levels deep")
	}
	start := s.skipSpace(int(d.InputOffset()))
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	v := &JV{Ptr: string(d.StackPointer())}
	switch tok.Kind() {
	case '"':
		v.Kind, v.Str = 's', tok.String()
	case '0':
		v.Kind, v.Num = 'n', tok.String()
	case 't', 'f':
		v.Kind, v.Bool = 'b', tok.Bool()
	case 'n':
		v.Kind = 'z'
	}
	switch tok.Kind() {
	case '{':
		v.Kind, v.Obj = 'o', map[string]*JV{}
		for d.PeekKind() != '}' {
			tok, err := d.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String()
			m, err := s.read(d, depth+1)
			if err != nil {
				return nil, err
			}
			if _, twice := v.Obj[name]; !twice {
				v.Keys = append(v.Keys, name) // JSON.parse keeps the first place
			}
			v.Obj[name] = m
		}
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
	case '[':
		v.Kind = 'a'
		for d.PeekKind() != ']' {
			e, err := s.read(d, depth+1)
			if err != nil {
				return nil, err
			}
			v.Arr = append(v.Arr, e)
		}
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
	}
	v.Rng = s.rangeOf(start, int(d.InputOffset()))
	return v, nil
}

// skipSpace moves past the white space and separators before a value.
func (s *Source) skipSpace(off int) int {
	for off < len(s.Bytes) && strings.IndexByte(" \t\r\n,:", s.Bytes[off]) >= 0 {
		off++
	}
	return off
}

func (s *Source) rangeOf(start, end int) hcl.Range {
	return hcl.Range{Filename: s.Name, Start: s.pos(start), End: s.pos(end)}
}

func (s *Source) pos(off int) hcl.Pos {
	off = min(max(off, 0), len(s.Bytes))
	line := 0
	lo, hi := 0, len(s.lines)-1
	for lo <= hi {
		m := (lo + hi) / 2
		if s.lines[m] <= off {
			line, lo = m, m+1
		} else {
			hi = m - 1
		}
	}
	col := utf8.RuneCount(s.Bytes[s.lines[line]:off]) + 1
	return hcl.Pos{Line: line + 1, Column: col, Byte: off}
}

// get follows object keys and array indexes (as strings) from v; a
// missing step gives nil.
func (v *JV) Get(path ...string) *JV {
	for _, p := range path {
		if v == nil {
			return nil
		}
		switch v.Kind {
		case 'o':
			v = v.Obj[p]
		case 'a':
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(v.Arr) {
				return nil
			}
			v = v.Arr[i]
		default:
			return nil
		}
	}
	return v
}

// str is the string at path, or "" when there is none or it is not a string.
func (v *JV) Text(path ...string) string {
	if e := v.Get(path...); e != nil && e.Kind == 's' {
		return e.Str
	}
	return ""
}

// boolean is the bool at path, or def.
func (v *JV) Boolean(def bool, path ...string) bool {
	if e := v.Get(path...); e != nil && e.Kind == 'b' {
		return e.Bool
	}
	return def
}

// number is the number at path as a float, or def.
func (v *JV) Number(def float64, path ...string) float64 {
	if e := v.Get(path...); e != nil && e.Kind == 'n' {
		if f, err := strconv.ParseFloat(e.Num, 64); err == nil {
			return f
		}
	}
	return def
}

// items is the elements of the array at path (nil when it is not one).
func (v *JV) Items(path ...string) []*JV {
	if e := v.Get(path...); e != nil && e.Kind == 'a' {
		return e.Arr
	}
	return nil
}

// kindName names a JSON kind for messages.
func kindName(k byte) string {
	switch k {
	case 'o':
		return "an object"
	case 'a':
		return "an array"
	case 's':
		return "a string"
	case 'n':
		return "a number"
	case 'b':
		return "a bool"
	}
	return "null"
}

// plain converts v to Go's JSON values (map[string]any, []any, string,
// json.Number as float64, bool, nil).
func (v *JV) plain() any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case 'o':
		m := make(map[string]any, len(v.Keys))
		for _, k := range v.Keys {
			m[k] = v.Obj[k].plain()
		}
		return m
	case 'a':
		a := make([]any, len(v.Arr))
		for i, e := range v.Arr {
			a[i] = e.plain()
		}
		return a
	case 's':
		return v.Str
	case 'n':
		f, _ := strconv.ParseFloat(v.Num, 64)
		return f
	case 'b':
		return v.Bool
	}
	return nil
}
