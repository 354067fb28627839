package state

import (
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunRoundTrip(t *testing.T) {
	s := openStore(t)
	start := time.Unix(0, 1_700_000_000_123_456_789)
	want := &Run{
		ID:         "01jb3k8x9m7q2z4f",
		Flow:       "summarise",
		Namespace:  "alice",
		FlowFile:   "flows/summarise.flow.hcl",
		SourceHash: "sha256:abc",
		Inputs:     json.RawMessage(`{"url": "https://example.com"}`),
		Status:     "running",
		StartedAt:  start,
	}
	if err := s.CreateRun(want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Run(want.ID)
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, got, want)

	fin := *want
	fin.Flow, fin.Inputs = "ignored", json.RawMessage(`"ignored"`) // FinishRun leaves these
	fin.Status = "failed"
	fin.FinishedAt = start.Add(1500 * time.Millisecond)
	fin.Outputs = json.RawMessage(`{"summary":"…"}`)
	fin.Error = "step fetch: 503 Service Unavailable"
	fin.Usage = json.RawMessage(`{"total_tokens":1234}`)
	if err := s.FinishRun(&fin); err != nil {
		t.Fatal(err)
	}
	got, err = s.Run(want.ID)
	if err != nil {
		t.Fatal(err)
	}
	want.Status, want.FinishedAt, want.Outputs, want.Error, want.Usage = fin.Status, fin.FinishedAt, fin.Outputs, fin.Error, fin.Usage
	checkRun(t, got, want)
}

func checkRun(t *testing.T, got, want *Run) {
	t.Helper()
	if got.ID != want.ID || got.Flow != want.Flow || got.Namespace != want.Namespace ||
		got.FlowFile != want.FlowFile || got.SourceHash != want.SourceHash ||
		got.Status != want.Status || got.Error != want.Error ||
		got.ParentRun != want.ParentRun || got.ParentStep != want.ParentStep ||
		!got.StartedAt.Equal(want.StartedAt) || !got.FinishedAt.Equal(want.FinishedAt) ||
		!jsonEqual(got.Inputs, want.Inputs) || !jsonEqual(got.Outputs, want.Outputs) || !jsonEqual(got.Usage, want.Usage) {
		t.Errorf("run:\n got %+v\nwant %+v", got, want)
	}
}

func TestChildren(t *testing.T) {
	s := openStore(t)
	parent := &Run{Flow: "outer", Status: "ok"}
	if err := s.CreateRun(parent); err != nil {
		t.Fatal(err)
	}
	base := time.Unix(1_700_000_000, 0)
	var want []*Run
	for i, step := range []string{"brief", `each["b"]`} {
		c := &Run{Flow: "inner", Status: "ok", Origin: "flow", StartedAt: base.Add(time.Duration(i) * time.Second),
			ParentRun: parent.ID, ParentStep: step}
		if err := s.CreateRun(c); err != nil {
			t.Fatal(err)
		}
		want = append(want, c)
	}
	if err := s.CreateRun(&Run{Flow: "inner", Status: "ok"}); err != nil { // not a child
		t.Fatal(err)
	}
	got, err := s.Children(parent.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("children: %d runs, want %d", len(got), len(want))
	}
	for i := range want {
		checkRun(t, got[i], want[i])
	}
	if got, err := s.Children(want[0].ID); err != nil || len(got) != 0 {
		t.Errorf("children of a run that started none: %v, %v", got, err)
	}
}

func TestCreateRunDefaults(t *testing.T) {
	s := openStore(t)
	before := time.Now()
	r := &Run{Flow: "f"}
	if err := s.CreateRun(r); err != nil {
		t.Fatal(err)
	}
	if len(r.ID) != runIDLen || r.Namespace != DefaultNamespace || r.Status != "running" || r.StartedAt.Before(before) {
		t.Errorf("CreateRun filled in %+v", r)
	}
	got, err := s.Run(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Inputs != nil || got.Outputs != nil || got.Usage != nil || !got.FinishedAt.IsZero() {
		t.Errorf("absent values came back as %+v", got)
	}
	checkRun(t, got, r)

	if err := s.CreateRun(&Run{}); err == nil {
		t.Error("CreateRun without a flow succeeded")
	}
}

func TestCreateRunDuplicate(t *testing.T) {
	s := openStore(t)
	createRun(t, s, "dup0000000000000", "f", time.Time{})
	err := s.CreateRun(&Run{ID: "dup0000000000000", Flow: "g"})
	if !errors.Is(err, ErrRunExists) {
		t.Errorf("second CreateRun with the same ID = %v, want ErrRunExists", err)
	}
	// The failed write did not disturb the writer.
	r := createRun(t, s, "", "f", time.Time{})
	if _, err := s.Run(r.ID); err != nil {
		t.Error(err)
	}
	if got, _ := s.Run("dup0000000000000"); got == nil || got.Flow != "f" {
		t.Errorf("the first run was changed: %+v", got)
	}
}

func TestFinishRun(t *testing.T) {
	s := openStore(t)
	r := createRun(t, s, "", "f", time.Time{})

	// FinishRun commits the step results handed over before it.
	for _, step := range []string{"a", "b", "c"} {
		s.RecordStep(&StepResult{RunID: r.ID, Step: step, Status: "ok"})
	}
	before := time.Now()
	fin := &Run{ID: r.ID, Status: "ok"}
	if err := s.FinishRun(fin); err != nil {
		t.Fatal(err)
	}
	if fin.FinishedAt.Before(before) {
		t.Errorf("FinishedAt = %v, want now", fin.FinishedAt)
	}
	if steps, err := s.Steps(r.ID); err != nil || len(steps) != 3 {
		t.Errorf("after FinishRun, Steps = %d steps, %v; want 3", len(steps), err)
	}

	err := s.FinishRun(&Run{ID: "nosuchrun", Status: "ok"})
	if !errors.Is(err, ErrRunNotFound) {
		t.Errorf("FinishRun of an unknown run = %v, want ErrRunNotFound", err)
	}
	if err := s.FinishRun(&Run{ID: r.ID}); err == nil {
		t.Error("FinishRun without a status succeeded")
	}
}

func TestRuns(t *testing.T) {
	s := openStore(t)
	t0 := time.Unix(1_700_000_000, 0)
	// Created out of order: the list is ordered by start time.
	createRun(t, s, "run-b1", "b", t0.Add(1*time.Second))
	createRun(t, s, "run-a3", "a", t0.Add(3*time.Second))
	createRun(t, s, "run-a1", "a", t0.Add(1*time.Second))
	createRun(t, s, "run-a2", "a", t0.Add(2*time.Second))
	createRun(t, s, "run-b4", "b", t0.Add(4*time.Second))

	for _, tc := range []struct {
		flow  string
		limit int
		want  string
	}{
		{"", 0, "run-b4 run-a3 run-a2 run-b1 run-a1"}, // ties: higher ID first
		{"", 2, "run-b4 run-a3"},
		{"", -1, "run-b4 run-a3 run-a2 run-b1 run-a1"},
		{"a", 0, "run-a3 run-a2 run-a1"},
		{"a", 1, "run-a3"},
		{"b", 10, "run-b4 run-b1"},
		{"c", 0, ""},
	} {
		runs, err := s.Runs(tc.flow, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if got := runIDs(runs); got != tc.want {
			t.Errorf("Runs(%q, %d) = %s, want %s", tc.flow, tc.limit, got, tc.want)
		}
	}
}

func runIDs(runs []*Run) string {
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.ID
	}
	return strings.Join(ids, " ")
}

func TestRunLookup(t *testing.T) {
	s := openStore(t)
	for _, id := range []string{"01jb3k8x9m7q2z4f", "01jb3k8x9m7q2z5g", "01jc000000000000", "01jd", "01jd1111"} {
		createRun(t, s, id, "f", time.Time{})
	}
	for _, tc := range []struct {
		id, want string
		err      error
	}{
		{"01jb3k8x9m7q2z4f", "01jb3k8x9m7q2z4f", nil}, // exact
		{"01jb3k8x9m7q2z4", "01jb3k8x9m7q2z4f", nil},  // unique prefix
		{"01jc", "01jc000000000000", nil},             // shortest prefix
		{"01JC00", "01jc000000000000", nil},           // typed in upper case
		{"01jd", "01jd", nil},                         // exact wins over being a prefix of 01jd1111
		{"01jd1", "01jd1111", nil},
		{"01jb", "", ErrAmbiguousRun},
		{"01jb3k8x9m7q2z", "", ErrAmbiguousRun},
		{"01j", "", ErrRunNotFound}, // too short to be a prefix
		{"01jz", "", ErrRunNotFound},
		{"01jb3k8x9m7q2z4f0", "", ErrRunNotFound}, // longer than any ID
		{"", "", ErrRunNotFound},
	} {
		r, err := s.Run(tc.id)
		switch {
		case tc.err != nil:
			if !errors.Is(err, tc.err) {
				t.Errorf("Run(%q) = %v, %v; want error %v", tc.id, r, err, tc.err)
			}
		case err != nil:
			t.Errorf("Run(%q): %v", tc.id, err)
		case r.ID != tc.want:
			t.Errorf("Run(%q) = %s, want %s", tc.id, r.ID, tc.want)
		}
	}

	_, err := s.Run("01jb")
	if msg := err.Error(); !strings.Contains(msg, "01jb3k8x9m7q2z4f") || !strings.Contains(msg, "01jb3k8x9m7q2z5g") {
		t.Errorf("the ambiguous prefix error %q does not list the candidates", msg)
	}
	_, err = s.Run("01j")
	if msg := err.Error(); !strings.Contains(msg, "at least 4 characters") {
		t.Errorf("the error for a short ID, %q, does not say a prefix needs 4 characters", msg)
	}
}

func TestRunLookupManyCandidates(t *testing.T) {
	s := openStore(t)
	for i := range 8 {
		createRun(t, s, "abcd"+string(rune('0'+i)), "f", time.Time{})
	}
	_, err := s.Run("abcd")
	if !errors.Is(err, ErrAmbiguousRun) || !strings.Contains(err.Error(), "…") || strings.Contains(err.Error(), "abcd7") {
		t.Errorf("Run(abcd) = %v; want an ambiguous error listing %d candidates and an ellipsis", err, maxAmbiguous)
	}
}

func TestSuccessor(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"abc", "abd", true},
		{"ab\xff", "ac", true},
		{"\xff\xff", "", false},
	} {
		got, ok := successor(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("successor(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestLatestRun(t *testing.T) {
	s := openStore(t)
	t0 := time.Unix(1_700_000_000, 0)
	add := func(id, flow, ns, status string, sec int) {
		r := &Run{ID: id, Flow: flow, Namespace: ns, StartedAt: t0.Add(time.Duration(sec) * time.Second)}
		if err := s.CreateRun(r); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishRun(&Run{ID: id, Status: status}); err != nil {
			t.Fatal(err)
		}
	}
	add("r1", "f", "", "ok", 1)
	add("r2", "f", "", "failed", 2)
	add("r3", "f", "bob", "ok", 3)
	add("r4", "g", "", "ok", 4)

	for _, tc := range []struct {
		flow, ns, status, want string
	}{
		{"f", "", "", "r2"},
		{"f", "default", "", "r2"},
		{"f", "", "ok", "r1"},
		{"f", "", "failed", "r2"},
		{"f", "bob", "", "r3"},
		{"f", "bob", "failed", ""},
		{"g", "", "ok", "r4"},
		{"h", "", "", ""},
	} {
		r, err := s.LatestRun(tc.flow, tc.ns, tc.status)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if r != nil {
			got = r.ID
		}
		if got != tc.want {
			t.Errorf("LatestRun(%q, %q, %q) = %q, want %q", tc.flow, tc.ns, tc.status, got, tc.want)
		}
	}
}

// TestFailedOutputs checks that the outputs a run could not evaluate are
// stored and read back with the run.
func TestFailedOutputs(t *testing.T) {
	s := openStore(t)
	r := createRun(t, s, "", "f", time.Time{})
	failed := json.RawMessage(`[{"name":"summary","step":"fetch","reason":"step \"fetch\" failed"}]`)
	if err := s.FinishRun(&Run{ID: r.ID, Status: "failed", Outputs: json.RawMessage(`{"count":3}`), FailedOutputs: failed}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Run(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Outputs) != `{"count":3}` || string(got.FailedOutputs) != string(failed) {
		t.Errorf("outputs %s, failed outputs %s", got.Outputs, got.FailedOutputs)
	}
	ok := createRun(t, s, "", "f", time.Time{})
	if err := s.FinishRun(&Run{ID: ok.ID, Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Run(ok.ID); err != nil || got.FailedOutputs != nil {
		t.Errorf("a run without failed outputs reads back %q, %v", got.FailedOutputs, err)
	}
}

// TestMigrateVersion2 checks that the runs of a database of schema version
// 2 are kept and gain an empty failed_outputs.
func TestMigrateVersion2(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", dsn(filepath.Join(dir, FileName)))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		migrations[0], migrations[1],
		`INSERT INTO runs (id, flow, namespace, flow_file, source_hash, inputs, status, started_at, finished_at, outputs, error, usage)
		 VALUES ('r1', 'f', 'default', 'f.flow.hcl', 'h', '{}', 'failed', 1, 2, '{"a":1}', 'boom', NULL)`,
		`PRAGMA user_version = 2`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s := openSQLiteIn(t, dir)
	r, err := s.Run("r1")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "failed" || string(r.Outputs) != `{"a":1}` || r.FailedOutputs != nil || r.Error != "boom" {
		t.Errorf("run after the migration: %+v", r)
	}
}
