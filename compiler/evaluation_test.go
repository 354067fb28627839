package compiler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
)

const evalFlow = `flow "triage" {}

input "ticket" {
  type = string
}

step "classify" {
  use    = "llm"
  prompt = "Ticket: ${input.ticket}"
  output "category" {
    type = string
  }
}

output "category" {
  value = step.classify.category
}
`

// compileEval writes the flow, a dataset and an eval into a directory and
// checks the eval.
func compileEval(t *testing.T, dataset, eval string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"triage.flow.hcl": evalFlow, "data.jsonl": dataset, "triage.eval.hcl": eval}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	parser := lang.NewParser()
	f, diags := parser.ParseFile(filepath.Join(dir, "triage.eval.hcl"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	defs, diags := lang.DecodeEvalFile(f)
	for _, def := range defs {
		_, d := compiler.CompileEval(def, compiler.Options{Parser: parser})
		diags = append(diags, d...)
	}
	var out []string
	for _, d := range diags {
		where := ""
		if d.Subject != nil {
			where = fmt.Sprintf("%s:%d,%d: ", filepath.Base(d.Subject.Filename), d.Subject.Start.Line, d.Subject.Start.Column)
		}
		out = append(out, where+d.Summary+": "+d.Detail)
	}
	return strings.Join(out, "\n")
}

const rows = `{"text": "a refund", "category": "billing", "n": 1}
{"text": "a crash", "category": "bug", "n": 2}
`

// TestDatasetRows: a CSV file's byte order mark is not part of its first
// field's name, and a row longer than MaxDatasetRow is an error naming
// where it is, read no further, in CSV as in JSONL.
func TestDatasetRows(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("y", compiler.MaxDatasetRow+1)
	files := map[string]string{
		"bom.csv":    "\ufeffid,text\n1,a\n",
		"long.csv":   "id,text\n1,a\n2,\"" + long + "\"\n3,c\n",
		"huge.csv":   "id,text\n1,a\n2,\"" + long + strings.Repeat("z", 256<<10) + "\n",
		"long.jsonl": `{"id": 1}` + "\n" + `{"id": "` + long + `"}` + "\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fields, err := compiler.DatasetFields(filepath.Join(dir, "bom.csv"))
	if _, ok := fields["id"]; err != nil || !ok || len(fields) != 2 {
		t.Errorf("bom.csv: fields %v, %v", fields, err)
	}
	for name, want := range map[string]string{
		"long.csv":   "the row on line 3 is longer than 16 MiB, the most a row of a dataset may be",
		"huge.csv":   "a row after line 2 is longer than 16 MiB, the most a row of a dataset may be",
		"long.jsonl": "line 2 is longer than 16 MiB, the most a row of a dataset may be",
	} {
		r, err := compiler.OpenDataset(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Next(); err != nil {
			t.Fatalf("%s: the first row: %v", name, err)
		}
		if _, err := r.Next(); err == nil || err.Error() != want {
			t.Errorf("%s: the long row: %v, want %s", name, err, want)
		}
		r.Close()
	}
}

func TestEvalChecks(t *testing.T) {
	cases := []struct {
		name, dataset, body, want string
	}{
		{"ok", rows, `
  variant "short" {
    override "step.classify" {
      prompt = "Classify: ${input.ticket}"
    }
  }
  score "category" {
    kind     = "exact"
    value    = output.category
    expected = row.category
  }
  gate {
    score = "category"
    min   = 0.8
  }`, ""},
		{"unknown field", rows, `
  score "category" {
    kind     = "exact"
    value    = output.category
    expected = row.label
  }`, `triage.eval.hcl:9,19: Unknown field: The dataset data.jsonl has no field "label" in its first rows; it has category, n, text.`},
		{"unknown output", rows, `
  score "category" {
    kind     = "exact"
    value    = output.label
    expected = row.category
  }`, `triage.eval.hcl:8,22: Unknown output: Flow "triage" has no output "label"; it has category.`},
		{"unknown step", rows, `
  variant "v" {
    override "step.clasify" {
      prompt = "x"
    }
  }`, `triage.eval.hcl:7,14: Override of an unknown step: The flow has no step "clasify". Did you mean "classify"?`},
		{"unknown argument", rows, `
  variant "v" {
    override "step.classify" {
      promt = "x"
    }
  }`, `triage.eval.hcl:8,7: Unsupported argument: Block "llm" has no input named "promt"`},
		{"argument type", rows, `
  variant "v" {
    override "step.classify" {
      temperature = "hot"
    }
  }`, `triage.eval.hcl:8,21: Incorrect input type: Input "temperature" of block "llm" must be a number`},
		{"kind arguments", rows, `
  score "s" {
    kind  = "numeric"
    value = output.category
  }`, `Missing argument: A numeric score needs expected (score "s").`},
		{"unknown kind", rows, `
  score "s" {
    kind  = "exactly"
    value = output.category
  }`, `Unknown score kind`},
		{"numeric type", rows, `
  score "s" {
    kind     = "numeric"
    value    = output.category
    expected = row.text
  }`, ``},
		{"inconsistent types", rows + `{"text": "x", "category": "other", "n": "three"}` + "\n", ``,
			`triage.eval.hcl:3,13: Invalid dataset: The dataset of eval "triage" cannot be read: field "n" is a number on line 1 and a string on line 3: a field's values are of one type.`},
		{"gate score", rows, `
  gate {
    score = "categry"
    min   = 0.5
  }`, `triage.eval.hcl:7,13: Unknown score: Eval "triage" has no score "categry".`},
		{"missing input", rows, "", ``},
		{"schema outside", rows, `
  score "s" {
    kind   = "json_schema"
    value  = output.category
    schema = "../schema.json"
  }`, `triage.eval.hcl:9,14: Invalid schema: The schema of score "s": the schema file ../schema.json cannot be read: must be relative to the flow's directory and stay inside it.`},
		{"schema missing", rows, `
  score "s" {
    kind   = "json_schema"
    value  = output.category
    schema = "schema.json"
  }`, `triage.eval.hcl:9,14: Invalid schema: The schema of score "s": the schema file schema.json cannot be read: no such file or directory.`},
		{"schema not a schema", rows, `
  score "s" {
    kind   = "json_schema"
    value  = output.category
    schema = { type = 3 }
  }`, `triage.eval.hcl:9,14: Invalid schema: The schema of score "s": the schema is not a JSON Schema`},
		{"byte order mark", "\ufeff" + rows, `
  score "s" {
    kind     = "exact"
    value    = output.category
    expected = row.category
  }`, ``},
		{"row too long", rows + `{"text": "` + strings.Repeat("x", compiler.MaxDatasetRow) + `"}` + "\n", ``,
			`triage.eval.hcl:3,13: Invalid dataset: The dataset of eval "triage" cannot be read: line 3 is longer than 16 MiB, the most a row of a dataset may be.`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inputs := `  inputs  = { ticket = row.text }`
			if c.name == "missing input" {
				inputs = ""
			}
			got := compileEval(t, c.dataset, "eval \"triage\" {\n  flow    = \"triage\"\n  dataset = \"data.jsonl\"\n"+inputs+"\n"+c.body+"\n}\n")
			switch {
			case c.name == "missing input":
				if !strings.Contains(got, `Missing input: Flow "triage" needs input "ticket"`) {
					t.Errorf("got %s", got)
				}
			case c.name == "numeric type":
				// A string output may hold a number: only the run tells.
				if got != "" {
					t.Errorf("got %s", got)
				}
			case c.want == "":
				if got != "" {
					t.Errorf("unexpected diagnostics:\n%s", got)
				}
			case !strings.Contains(got, c.want):
				t.Errorf("got\n%s\nwant it to contain\n%s", got, c.want)
			}
		})
	}
}
