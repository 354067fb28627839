package compiler

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
)

// DatasetReader reads the rows of an eval's dataset one at a time: a JSONL
// file (one JSON object a line; blank lines are skipped) or a CSV file
// whose first line names the fields (every value a string). It holds one
// row at a time, however large the file.
type DatasetReader struct {
	f      *os.File
	lines  *bufio.Reader
	csv    *csv.Reader
	header []string
	line   int // the line of the row last read, 1-based
	row    int // rows read
}

// OpenDataset opens a dataset by its extension: .csv is CSV, anything else
// JSONL.
func OpenDataset(path string) (*DatasetReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r := &DatasetReader{f: f}
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		r.csv = csv.NewReader(bufio.NewReader(f))
		r.csv.ReuseRecord = true
		r.csv.FieldsPerRecord = 0
		head, err := r.csv.Read()
		if err != nil {
			f.Close()
			if err == io.EOF {
				return nil, errors.New("the CSV file is empty: its first line names the fields")
			}
			return nil, err
		}
		r.header = append([]string(nil), head...)
		r.line = 1
		return r, nil
	}
	r.lines = bufio.NewReaderSize(f, 64<<10)
	return r, nil
}

// Close closes the file.
func (r *DatasetReader) Close() error { return r.f.Close() }

// Line is the line of the row Next returned last.
func (r *DatasetReader) Line() int { return r.line }

// Next returns the next row's fields, or io.EOF after the last row.
func (r *DatasetReader) Next() (map[string]cty.Value, error) {
	if r.csv != nil {
		rec, err := r.csv.Read()
		if err != nil {
			return nil, err
		}
		r.line, _ = r.csv.FieldPos(0)
		r.row++
		out := make(map[string]cty.Value, len(r.header))
		for i, name := range r.header {
			out[name] = cty.StringVal(rec[i])
		}
		return out, nil
	}
	for {
		text, err := r.lines.ReadBytes('\n')
		if len(text) == 0 && err != nil {
			return nil, err
		}
		r.line++
		text = bytes.TrimSpace(text)
		if len(text) == 0 {
			continue
		}
		attrs, derr := jsonval.DecodeAttrs(text)
		if derr != nil {
			return nil, fmt.Errorf("line %d is not a JSON object: %v", r.line, derr)
		}
		r.row++
		return attrs, nil
	}
}

// datasetHead is how many rows of a dataset the compiler reads for its
// fields and their types.
const datasetHead = 100

// DatasetFields reads the first rows of a dataset and returns its fields'
// types: a field's type is its values' (null values aside); a field whose
// values are of different types in those rows is an error, naming the
// lines.
func DatasetFields(path string) (map[string]cty.Type, error) {
	r, err := OpenDataset(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	types := map[string]cty.Type{}
	lines := map[string]int{}
	for n := 0; n < datasetHead; n++ {
		row, err := r.Next()
		if err == io.EOF {
			if n == 0 {
				return nil, errors.New("it has no rows")
			}
			break
		}
		if err != nil {
			return nil, err
		}
		for name, v := range row {
			if v.IsNull() {
				if _, ok := types[name]; !ok {
					types[name] = cty.DynamicPseudoType
				}
				continue
			}
			ty := v.Type()
			prev, ok := types[name]
			switch {
			case !ok || prev == cty.DynamicPseudoType && lines[name] == 0:
				types[name], lines[name] = ty, r.Line()
			case prev.Equals(ty):
			case !prev.IsPrimitiveType() && !ty.IsPrimitiveType():
				// Objects and lists of different shapes: known only per row.
				types[name] = cty.DynamicPseudoType
			case prev == cty.DynamicPseudoType:
			default:
				return nil, fmt.Errorf("field %q is %s on line %d and %s on line %d: a field's values are of one type",
					name, typeWord(prev), lines[name], typeWord(ty), r.Line())
			}
		}
	}
	return types, nil
}

func typeWord(ty cty.Type) string {
	switch {
	case ty == cty.String:
		return "a string"
	case ty == cty.Number:
		return "a number"
	case ty == cty.Bool:
		return "a bool"
	case ty.IsObjectType() || ty.IsMapType():
		return "an object"
	}
	return "a list"
}
