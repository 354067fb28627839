package blocks

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"strings"
	"time"

	"github.com/flowctl/flowctl/lang"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	_ "modernc.org/sqlite" // the "sqlite" driver
)

// The sql block runs one SQL statement on PostgreSQL (url
// postgres://…, through pgx) or SQLite (url sqlite:PATH, the file
// relative to the flow's directory), with params as its $1, $2… (? in
// SQLite), and gives the rows it returns as objects by column name.

// sqlExecutor runs the sql block. A PostgreSQL server is dialled as the
// http block dials: only where the egress list allows.
type sqlExecutor struct{ egress *Egress }

func (e sqlExecutor) Execute(ctx context.Context, call *Call) (*Result, error) {
	query := call.Inputs["query"].AsString()
	if err := singleStatement(query); err != nil {
		return nil, err
	}
	driver, dsn, err := sqlSource(call)
	if err != nil {
		return nil, err
	}
	var args []any
	if p := call.Inputs["params"]; !p.IsNull() {
		if !p.CanIterateElements() || p.Type().IsMapType() || p.Type().IsObjectType() {
			return nil, fmt.Errorf("sql: params is a list of values")
		}
		for it := p.ElementIterator(); it.Next(); {
			_, v := it.Element()
			a, err := sqlArg(v)
			if err != nil {
				return nil, err
			}
			args = append(args, a)
		}
	}
	var db *sql.DB
	if driver == "pgx" {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return nil, fmt.Errorf("sql: url: %v", err)
		}
		if e.egress != nil {
			cfg.DialFunc = e.egress.dialContext(&net.Dialer{Timeout: 30 * time.Second})
		}
		db = stdlib.OpenDB(*cfg)
	} else if db, err = sql.Open(driver, dsn); err != nil {
		return nil, fmt.Errorf("sql: %v", err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sql: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("sql: %v", err)
	}
	var out []map[string]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("sql: %v", err)
		}
		row := map[string]any{}
		for i, c := range cols {
			if b, ok := vals[i].([]byte); ok {
				vals[i] = string(b)
			}
			row[c] = vals[i]
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sql: %v", err)
	}
	list := cty.EmptyTupleVal
	if len(out) > 0 {
		b, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("sql: a value of the rows: %v", err)
		}
		ty, err := ctyjson.ImpliedType(b)
		if err != nil {
			return nil, fmt.Errorf("sql: %v", err)
		}
		if list, err = ctyjson.Unmarshal(b, ty); err != nil {
			return nil, fmt.Errorf("sql: %v", err)
		}
	}
	return &Result{Outputs: map[string]cty.Value{"rows": list, "count": cty.NumberIntVal(int64(len(out)))}}, nil
}

// sqlSource is the driver and data source of the url input.
func sqlSource(call *Call) (string, string, error) {
	u := call.Inputs["url"].AsString()
	switch {
	case strings.HasPrefix(u, "postgres://"), strings.HasPrefix(u, "postgresql://"):
		return "pgx", u, nil
	case strings.HasPrefix(u, "sqlite:"):
		rel := strings.TrimPrefix(u, "sqlite:")
		path, err := lang.ResolveLocalPath(call.Dir, rel)
		if err != nil {
			return "", "", err
		}
		return "sqlite", path, nil
	}
	return "", "", fmt.Errorf("sql: url is neither postgres://… nor sqlite:PATH")
}

// sqlArg is a parameter as the driver takes it: text, a number (whole
// numbers as integers), a bool or null; lists and objects as JSON text.
func sqlArg(v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	switch ty := v.Type(); {
	case ty == cty.String:
		return v.AsString(), nil
	case ty == cty.Bool:
		return v.True(), nil
	case ty == cty.Number:
		f := v.AsBigFloat()
		if f.IsInt() {
			if i, acc := f.Int64(); acc == big.Exact {
				return i, nil
			}
		}
		x, _ := f.Float64()
		return x, nil
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return nil, fmt.Errorf("sql: a parameter: %v", err)
	}
	return string(b), nil
}

// singleStatement refuses a query of more than one statement: a semicolon
// outside strings, quoted names and comments with more after it.
func singleStatement(q string) error {
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case c == '\'' || c == '"' || c == '`':
			j := strings.IndexByte(q[i+1:], c)
			if j < 0 {
				return nil // the database says what is wrong
			}
			i += j + 1
		case c == '-' && strings.HasPrefix(q[i:], "--"):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return nil
			}
			i += j
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return nil
			}
			i += j + 3
		case c == '$':
			// PostgreSQL's dollar quoting: $tag$ … $tag$.
			end := strings.IndexByte(q[i+1:], '$')
			tag := ""
			if end >= 0 {
				tag = q[i : i+end+2]
			}
			if end < 0 || strings.ContainsAny(tag[1:len(tag)-1], " \t\n;'\"()") || len(tag) > 2 && tag[1] >= '0' && tag[1] <= '9' {
				continue // $1, a parameter
			}
			j := strings.Index(q[i+len(tag):], tag)
			if j < 0 {
				return nil
			}
			i += len(tag) + j + len(tag) - 1
		case c == ';':
			if strings.TrimSpace(stripComments(q[i+1:])) != "" {
				return fmt.Errorf("sql: the query holds more than one statement; the sql block runs one")
			}
			return nil
		}
	}
	return nil
}

// stripComments drops SQL comments from text that holds no strings.
func stripComments(s string) string {
	for {
		switch {
		case strings.HasPrefix(strings.TrimSpace(s), "--"):
			s = strings.TrimSpace(s)
			j := strings.IndexByte(s, '\n')
			if j < 0 {
				return ""
			}
			s = s[j+1:]
		case strings.HasPrefix(strings.TrimSpace(s), "/*"):
			s = strings.TrimSpace(s)
			j := strings.Index(s, "*/")
			if j < 0 {
				return ""
			}
			s = s[j+2:]
		default:
			return s
		}
	}
}
