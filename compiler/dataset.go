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
// whose first line names the fields (every value a string). A UTF-8 byte
// order mark at the start of the file (as spreadsheets write) is skipped.
// It holds one row at a time, however large the file, and a row of more
// than MaxDatasetRow bytes is an error, not read whole.
type DatasetReader struct {
	f      *os.File
	lines  *bufio.Reader
	csv    *csv.Reader
	csvIn  *rowLimit
	header []string
	line   int // the line of the row last read, 1-based
	row    int // rows read
}

// MaxDatasetRow is the most bytes a row of a dataset may have (a JSONL
// line, a CSV record).
const MaxDatasetRow = 16 << 20

// errRowTooLong is the error of a row over MaxDatasetRow.
var errRowTooLong = fmt.Errorf("is longer than %d MiB, the most a row of a dataset may be", MaxDatasetRow>>20)

// rowLimit fails a read once more than MaxDatasetRow bytes (and the CSV
// reader's read-ahead) have been read since the last row ended.
type rowLimit struct {
	r io.Reader
	n int
}

func (l *rowLimit) Read(p []byte) (int, error) {
	if l.n > MaxDatasetRow+64<<10 {
		return 0, errRowTooLong
	}
	n, err := l.r.Read(p)
	l.n += n
	return n, err
}

// skipBOM skips a UTF-8 byte order mark at the start of r.
func skipBOM(r *bufio.Reader) {
	if b, err := r.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		r.Discard(3)
	}
}

// OpenDataset opens a dataset by its extension: .csv is CSV, anything else
// JSONL.
func OpenDataset(path string) (*DatasetReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r := &DatasetReader{f: f}
	in := bufio.NewReaderSize(f, 64<<10)
	skipBOM(in)
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		r.csvIn = &rowLimit{r: in}
		r.csv = csv.NewReader(r.csvIn)
		r.csv.ReuseRecord = true
		r.csv.FieldsPerRecord = 0
		head, err := r.csv.Read()
		if err != nil {
			f.Close()
			switch {
			case err == io.EOF:
				return nil, errors.New("the CSV file is empty: its first line names the fields")
			case errors.Is(err, errRowTooLong):
				return nil, fmt.Errorf("its first line %v", err)
			}
			return nil, err
		}
		r.header = append([]string(nil), head...)
		r.line = 1
		r.csvIn.n = 0
		return r, nil
	}
	r.lines = in
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
		if errors.Is(err, errRowTooLong) {
			return nil, fmt.Errorf("a row after line %d %v", r.line, err)
		}
		if err != nil {
			return nil, err
		}
		r.csvIn.n = 0
		r.line, _ = r.csv.FieldPos(0)
		size := 0
		for _, v := range rec {
			size += len(v)
		}
		if size > MaxDatasetRow {
			return nil, fmt.Errorf("the row on line %d %v", r.line, errRowTooLong)
		}
		r.row++
		out := make(map[string]cty.Value, len(r.header))
		for i, name := range r.header {
			out[name] = cty.StringVal(rec[i])
		}
		return out, nil
	}
	for {
		text, err := r.readLine()
		if errors.Is(err, errRowTooLong) {
			return nil, fmt.Errorf("line %d %v", r.line+1, err)
		}
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

// readLine reads a JSONL line, up to MaxDatasetRow bytes: a longer one
// is errRowTooLong, read no further.
func (r *DatasetReader) readLine() ([]byte, error) {
	var line []byte
	for {
		part, err := r.lines.ReadSlice('\n')
		if len(line)+len(part) > MaxDatasetRow {
			return nil, errRowTooLong
		}
		line = append(line, part...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
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
