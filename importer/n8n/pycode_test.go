package n8n_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
)

// The Python Code node, as n8n's Pyodide runs it. "Compare scores" is the
// node of importer/testdata/real/enescingoz+awesome-n8n-templates/
// AI_Research_RAG_and_Data_Analysis__Automated_Hugging_Face_Paper_Summary_Fetching_Categorization_Workflow.json
// with its indentation (the corpus copy lost it, so n8n fails on it:
// TestPythonCodeRefused), "Vote" takes Counter(...).most_common of
// ..._KNN_.json's and _input.item's JsProxy reads of 1731's.
func TestPythonCodeRuns(t *testing.T) {
	compare := "points = _input.first()['json']['result']['points']\nthreshold_type = _('Variables for medoids').first()['json']['clusterThresholdCenterType']\n\nmax_score = -1\ncrop_with_max_score = None\nundefined = True\n\nfor center in points:\n if center['score'] >= center['payload'][threshold_type]:\n  undefined = False\n  if center['score'] > max_score:\n   max_score = center['score']\n   crop_with_max_score = center['payload']['crop_name']\n\nif undefined:\n result_message = \"ALERT, we might have a new undefined crop!\"\nelse:\n result_message = f\"Looks similar to {crop_with_max_score}\"\n\nreturn [{\n \"json\": {\n \"result\": result_message\n }\n}]\n"
	vote := "from collections import Counter\n\npoints = _('Qdrant').first().json.result.points\nitem.json.vote = Counter([p.payload.crop_name for p in points]).most_common(1)\nitem.json.at = _input.item.json['result'][:5] + str(_itemIndex)\nreturn item"
	nodes := []string{
		`{"name": "Variables for medoids", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"jsCode": "return [{json: {clusterThresholdCenterType: 'is_medoid_cluster_threshold'}}]"}}`,
		`{"name": "Qdrant", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"jsCode": "return [{json: {result: {points: [{score: 0.9, payload: {is_medoid_cluster_threshold: 0.8, crop_name: 'kale'}}, {score: 0.95, payload: {is_medoid_cluster_threshold: 0.99, crop_name: 'corn'}}, {score: 0.85, payload: {is_medoid_cluster_threshold: 0.5, crop_name: 'kale'}}]}}}]"}}`,
		`{"name": "Compare scores", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"language": "python", "pythonCode": ` + string(mustJSON(compare)) + `}}`,
		`{"name": "Vote", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"language": "python", "mode": "runOnceForEachItem", "pythonCode": ` + string(mustJSON(vote)) + `}}`,
	}
	files, diags := importApp(t, appWorkflow(t, "crops", nodes...))
	if files == nil {
		t.Fatalf("not imported: %v", diags)
	}
	if !strings.Contains(files["blocks/n8n_python.block.hcl"], `runtime     = "python"`) {
		t.Errorf("no n8n_python block in %v", files["blocks/n8n_python.block.hcl"])
	}
	out := runImported(t, files, "crops", nil, "")
	got, _ := json.Marshal(out["vote"])
	want := `[{"at":"Looks0","result":"Looks similar to kale","vote":[["kale",2]]}]`
	if string(got) != want {
		t.Errorf("vote = %s, want %s (outputs %v)", got, want, out)
	}

	// None is JavaScript's undefined (a key left out, an element null);
	// keys are written as JavaScript writes the values Pyodide makes of
	// them; a dict with a json key is the item.
	keys := "return [{'a': None, 'b': [None, 1.5], 2: True, False: 3.0}, {'json': {}}][_itemIndex]"
	keysNode := `{"name": "Keys", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"language": "python", "mode": "runOnceForEachItem", "pythonCode": ` + string(mustJSON(keys)) + `}}`
	two := `{"name": "Two", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"jsCode": "return [{json: {}}, {json: {}}]"}}`
	if files, diags = importApp(t, appWorkflow(t, "keys", two, keysNode)); files == nil {
		t.Fatalf("not imported: %v", diags)
	}
	got, _ = json.Marshal(runImported(t, files, "keys", nil, "")["keys"])
	if want := `[{"2":true,"b":[null,1.5],"false":3},{}]`; string(got) != want {
		t.Errorf("keys = %s, want %s", got, want)
	}
}

// What a python block does not run is refused at the node's code.
func TestPythonCodeRefused(t *testing.T) {
	for code, want := range map[string]string{
		"import numpy as np\nreturn []":            `Unsupported code; Node "Py" (n8n-nodes-base.code), at /nodes/1/parameters/pythonCode in w.json: the code has "import numpy"`,
		"from sklearn.cluster import KMeans":       `"from sklearn.cluster import KMeans"`,
		"import time\nreturn [{'t': time.time()}]": `the code has "import time"`,
		"return [{'now': str(_now)}]":              `the code uses _now`,
		"await micropip.install('x')":              `the code uses await`,
		"x = _('A').itemMatching(0)\nreturn [x]":   `the code uses .itemMatching`,
		"for p in _input.all():\nif p:\n x = 1\n":  `Invalid Python; Node "Py" (n8n-nodes-base.code), at /nodes/1/parameters/pythonCode in w.json: SyntaxError: expected an indented block after 'for' statement on line 1 (line 2 of its code): n8n fails`,
	} {
		node := `{"name": "Py", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"language": "python", "pythonCode": ` + string(mustJSON(code)) + `}}`
		_, diags := importer.Import([]importer.File{{Name: "w.json", Bytes: appWorkflow(t, "py", node)}}, importer.Options{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), want) {
			t.Errorf("%q: want %q, got %v", code, want, diags)
		}
	}
	native := `{"name": "Py", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"language": "pythonNative", "pythonCode": "return _items"}}`
	if _, diags := importer.Import([]importer.File{{Name: "w.json", Bytes: appWorkflow(t, "py", native)}}, importer.Options{}); !strings.Contains(diags.Error(), "Unsupported language") {
		t.Errorf("pythonNative: %v", diags)
	}
}

// Without python on the machine, a workflow with a Python Code node
// still imports: its flow validates (importer.Check, which flowctl import
// runs), as flowctl validate says, and runs where there is one. The test runs itself with FLOWCTL_PYTHON naming no
// interpreter (pyrun finds it once per process).
func TestPythonCodeWithoutPython(t *testing.T) {
	node := `{"name": "Py", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"language": "python", "pythonCode": "return [{'n': len(_input.all())}]"}}`
	if os.Getenv("N8N_TEST_NO_PYTHON") == "1" {
		res, diags := importer.Import([]importer.File{{Name: "w.json", Bytes: appWorkflow(t, "py", node)}}, importer.Options{})
		if res == nil || diags.HasErrors() {
			t.Fatalf("not imported without python: %v", diags)
		}
		if d := importer.Check(res.Files); d.HasErrors() {
			t.Fatalf("the flow does not validate without python: %v", d)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPythonCodeWithoutPython$", "-test.count=1")
	cmd.Env = append(os.Environ(), "N8N_TEST_NO_PYTHON=1", "FLOWCTL_PYTHON=/nonexistent/python3")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
