package state

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/runtime/state/pgtest"
)

// The collections' suite runs against the suite's backend (openStoreIn):
// SQLite with its HNSW graph, or PostgreSQL with pgvector under
// .ci/with-postgres.

var ctx0 = context.Background()

func openCollection(t testing.TB, s *Store, name string, dims int, distance string) blocks.Collection {
	t.Helper()
	c, err := s.Collection(ctx0, blocks.CollectionSpec{Name: name, Dimensions: dims, Distance: distance})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func upsert(t testing.TB, c blocks.Collection, replace blocks.Filter, items ...blocks.VectorItem) {
	t.Helper()
	if err := c.Upsert(ctx0, items, replace); err != nil {
		t.Fatal(err)
	}
}

func search(t testing.TB, c blocks.Collection, q blocks.VectorQuery) []blocks.VectorMatch {
	t.Helper()
	ms, err := c.Search(ctx0, q)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func ids(ms []blocks.VectorMatch) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func ptr(f float64) *float64 { return &f }

func item(id string, v []float32, text string, meta map[string]any) blocks.VectorItem {
	return blocks.VectorItem{ID: id, Vector: v, Text: text, Metadata: meta}
}

func TestCollectionSearchAndFilters(t *testing.T) {
	s := openStore(t)
	c := openCollection(t, s, "docs", 3, blocks.DistanceCosine)
	upsert(t, c, nil,
		item("a", []float32{1, 0, 0}, "alpha", map[string]any{"source": "x.md", "page": 1.0}),
		item("b", []float32{0.9, 0.1, 0}, "beta", map[string]any{"source": "x.md", "page": 2.0}),
		item("c", []float32{0, 1, 0}, "gamma", map[string]any{"source": "y.md", "page": 3.0}),
		item("d", []float32{0, 0, 1}, "delta", map[string]any{"source": "y.md", "page": 4.0, "draft": true}),
	)
	q := []float32{1, 0.05, 0}
	got := search(t, c, blocks.VectorQuery{Vector: q, TopK: 2})
	if !slices.Equal(ids(got), []string{"a", "b"}) {
		t.Fatalf("top 2 = %v, want [a b]", ids(got))
	}
	if got[0].Text != "alpha" || got[0].Metadata["source"] != "x.md" || got[0].Metadata["page"] != 1.0 {
		t.Errorf("match a = %+v", got[0])
	}
	want := 1 - (1 / math.Sqrt(1+0.05*0.05))
	if d := math.Abs(got[0].Score - (1 - want)); d > 1e-5 {
		t.Errorf("score of a = %v, want %v (cosine similarity)", got[0].Score, 1-want)
	}
	for name, tc := range map[string]struct {
		f    blocks.Filter
		want []string
	}{
		"equal":      {blocks.Filter{{Key: "source", Eq: "y.md"}}, []string{"c", "d"}},
		"range":      {blocks.Filter{{Key: "page", GTE: ptr(2), LT: ptr(4)}}, []string{"b", "c"}},
		"both":       {blocks.Filter{{Key: "source", Eq: "x.md"}, {Key: "page", GT: ptr(1)}}, []string{"b"}},
		"bool":       {blocks.Filter{{Key: "draft", Eq: true}}, []string{"d"}},
		"number":     {blocks.Filter{{Key: "page", Eq: 3.0}}, []string{"c"}},
		"type":       {blocks.Filter{{Key: "page", Eq: "3"}}, nil},
		"none":       {blocks.Filter{{Key: "source", Eq: "z.md"}}, nil},
		"missingkey": {blocks.Filter{{Key: "nope", GT: ptr(0)}}, nil},
	} {
		got := search(t, c, blocks.VectorQuery{Vector: q, TopK: 10, Filter: tc.f})
		if !slices.Equal(ids(got), tc.want) && !(len(got) == 0 && tc.want == nil) {
			t.Errorf("%s: %v, want %v", name, ids(got), tc.want)
		}
	}
	got = search(t, c, blocks.VectorQuery{Vector: q, TopK: 10, MinScore: ptr(0.5)})
	if !slices.Equal(ids(got), []string{"a", "b"}) {
		t.Errorf("min_score 0.5: %v, want [a b]", ids(got))
	}

	// Wrong dimensions: an error naming the collection, nothing stored.
	err := c.Upsert(ctx0, []blocks.VectorItem{item("e", []float32{1, 2}, "", nil)}, nil)
	var de *blocks.DimensionError
	if !errors.As(err, &de) || de.Got != 2 || de.Want != 3 || !strings.Contains(err.Error(), `collection "docs" has 3 dimensions`) {
		t.Errorf("upsert of 2 dimensions: %v", err)
	}
	if _, err := c.Search(ctx0, blocks.VectorQuery{Vector: []float32{1, 2, 3, 4}, TopK: 1}); !errors.As(err, &de) {
		t.Errorf("search with 4 dimensions: %v", err)
	}
	if err := c.Upsert(ctx0, []blocks.VectorItem{item("z", []float32{0, 0, 0}, "", nil)}, nil); err == nil || !strings.Contains(err.Error(), "all zeros") {
		t.Errorf("a zero vector under cosine: %v", err)
	}
	if got := search(t, c, blocks.VectorQuery{Vector: q, TopK: 10}); len(got) != 4 {
		t.Errorf("after refused upserts: %d items, want 4", len(got))
	}
	// The same name with other dimensions is refused.
	if _, err := s.Collection(ctx0, blocks.CollectionSpec{Name: "docs", Dimensions: 4, Distance: blocks.DistanceCosine}); err == nil ||
		!strings.Contains(err.Error(), "3 dimensions") {
		t.Errorf("reopening with 4 dimensions: %v", err)
	}
}

func TestCollectionDistances(t *testing.T) {
	s := openStore(t)
	for _, d := range []string{blocks.DistanceEuclidean, blocks.DistanceDot} {
		c := openCollection(t, s, "d_"+d, 2, d)
		upsert(t, c, nil,
			item("near", []float32{1, 1}, "", nil),
			item("far", []float32{10, 10}, "", nil),
		)
		got := search(t, c, blocks.VectorQuery{Vector: []float32{1, 1}, TopK: 2})
		want := []string{"near", "far"}
		if d == blocks.DistanceDot {
			want = []string{"far", "near"} // the larger dot product
		}
		if !slices.Equal(ids(got), want) {
			t.Errorf("%s: %v, want %v", d, ids(got), want)
		}
		if d == blocks.DistanceDot && math.Abs(got[0].Score-20) > 1e-4 {
			t.Errorf("dot score = %v, want 20", got[0].Score)
		}
		if d == blocks.DistanceEuclidean && math.Abs(got[1].Score+9*math.Sqrt2) > 1e-4 {
			t.Errorf("euclidean score = %v, want %v", got[1].Score, -9*math.Sqrt2)
		}
	}
}

func TestCollectionReplaceAndDelete(t *testing.T) {
	dir := t.TempDir()
	s := openStoreIn(t, dir)
	c := openCollection(t, s, "notes", 2, blocks.DistanceCosine)
	doc := func(source string, n int, version float64) []blocks.VectorItem {
		var out []blocks.VectorItem
		for i := range n {
			out = append(out, item(fmt.Sprintf("%s#%d", source, i), []float32{1, float32(i + 1)}, source,
				map[string]any{"source": source, "version": version}))
		}
		return out
	}
	upsert(t, c, blocks.Filter{{Key: "source", Eq: "a.md"}}, doc("a.md", 3, 1)...)
	upsert(t, c, blocks.Filter{{Key: "source", Eq: "b.md"}}, doc("b.md", 2, 1)...)
	// a.md shrinks to 2 chunks: its third goes with the replace.
	upsert(t, c, blocks.Filter{{Key: "source", Eq: "a.md"}}, doc("a.md", 2, 2)...)
	all := search(t, c, blocks.VectorQuery{Vector: []float32{1, 1}, TopK: 10})
	got := ids(all)
	slices.Sort(got)
	if !slices.Equal(got, []string{"a.md#0", "a.md#1", "b.md#0", "b.md#1"}) {
		t.Fatalf("after replacing a.md: %v", got)
	}
	for _, m := range all {
		if m.Metadata["source"] == "a.md" && m.Metadata["version"] != 2.0 {
			t.Errorf("%s has version %v, want 2", m.ID, m.Metadata["version"])
		}
	}
	n, err := c.Delete(ctx0, nil, blocks.Filter{{Key: "source", Eq: "b.md"}})
	if err != nil || n != 2 {
		t.Fatalf("delete by source: %d, %v; want 2", n, err)
	}
	n, err = c.Delete(ctx0, []string{"a.md#1", "nope"}, nil)
	if err != nil || n != 1 {
		t.Fatalf("delete by id: %d, %v; want 1", n, err)
	}
	if got := ids(search(t, c, blocks.VectorQuery{Vector: []float32{1, 1}, TopK: 10})); !slices.Equal(got, []string{"a.md#0"}) {
		t.Fatalf("after deletes: %v, want [a.md#0]", got)
	}
	// An upsert in the same call as its replace keeps the ids it gives.
	upsert(t, c, blocks.Filter{{Key: "source", Eq: "a.md"}}, doc("a.md", 1, 3)...)
	if got := search(t, c, blocks.VectorQuery{Vector: []float32{1, 1}, TopK: 10}); len(got) != 1 || got[0].Metadata["version"] != 3.0 {
		t.Fatalf("after re-upsert: %+v", got)
	}

	// What is stored outlives the store: reopened, the same answers.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openStoreIn(t, dir)
	c2 := openCollection(t, s2, "notes", 2, blocks.DistanceCosine)
	if got := search(t, c2, blocks.VectorQuery{Vector: []float32{1, 1}, TopK: 10}); len(got) != 1 || got[0].ID != "a.md#0" || got[0].Text != "a.md" {
		t.Fatalf("reopened: %+v", got)
	}
	if err := s2.DeleteCollection(ctx0, "notes"); err != nil {
		t.Fatal(err)
	}
	c3 := openCollection(t, s2, "notes", 5, blocks.DistanceEuclidean)
	if got := search(t, c3, blocks.VectorQuery{Vector: []float32{1, 1, 1, 1, 1}, TopK: 10}); len(got) != 0 {
		t.Fatalf("a deleted collection made again is empty: %+v", got)
	}
}

func TestCollectionHybrid(t *testing.T) {
	s := openStore(t)
	c := openCollection(t, s, "kb", 2, blocks.DistanceCosine)
	upsert(t, c, nil,
		item("vec", []float32{1, 0}, "general notes about the weather", nil),
		item("mid", []float32{1, 0.5}, "more general notes", nil),
		item("kw", []float32{0, 1}, "the kubernetes operator restarts pods", nil),
	)
	q := []float32{1, 0}
	vector := ids(search(t, c, blocks.VectorQuery{Vector: q, TopK: 3}))
	if !slices.Equal(vector, []string{"vec", "mid", "kw"}) {
		t.Fatalf("vector ranking %v", vector)
	}
	hybrid := search(t, c, blocks.VectorQuery{Vector: q, Query: "kubernetes pods", Mode: blocks.SearchHybrid, TopK: 2})
	// kw is 3rd by vectors and 1st by BM25: 1/63 + 1/61 beats mid's 1/62.
	if got := ids(hybrid); !slices.Equal(got, []string{"vec", "kw"}) && !slices.Equal(got, []string{"kw", "vec"}) {
		t.Fatalf("hybrid top 2 = %v, want vec and kw", got)
	}
	want := 1.0/(rrfK+3) + 1.0/(rrfK+1)
	for _, m := range hybrid {
		if m.ID == "kw" && math.Abs(m.Score-want) > 1e-12 {
			t.Errorf("kw's fused score %v, want %v", m.Score, want)
		}
	}
	// Text alone: BM25 ranks.
	if got := ids(search(t, c, blocks.VectorQuery{Query: "kubernetes", Mode: blocks.SearchHybrid, TopK: 3})); !slices.Equal(got, []string{"kw"}) {
		t.Errorf("hybrid without a vector: %v, want [kw]", got)
	}
	if _, err := c.Search(ctx0, blocks.VectorQuery{Vector: q, Mode: blocks.SearchHybrid, TopK: 1}); err == nil {
		t.Error("hybrid without a query's text: no error")
	}
}

// randomVectors are n unit-less vectors of dims, from seed.
func randomVectors(seed uint64, n, dims int) [][]float32 {
	r := rand.New(rand.NewPCG(seed, seed))
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		out[i] = v
	}
	return out
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// exactTop is the ids of the k vectors most similar to q, by comparing
// them all.
func exactTop(vs [][]float32, q []float32, k int) []string {
	idx := make([]int, len(vs))
	sim := make([]float64, len(vs))
	for i := range vs {
		idx[i], sim[i] = i, cosine(vs[i], q)
	}
	slices.SortFunc(idx, func(a, b int) int {
		if sim[a] > sim[b] {
			return -1
		}
		if sim[a] < sim[b] {
			return 1
		}
		return 0
	})
	out := make([]string, k)
	for i := range k {
		out[i] = strconv.Itoa(idx[i])
	}
	return out
}

// Recall computes recall@10 of the collection's index against exact
// search.
func recall(t testing.TB, c blocks.Collection, vs, qs [][]float32, f blocks.Filter) float64 {
	hits := 0
	for _, q := range qs {
		want := exactTop(vs, q, 10)
		got := ids(search(t, c, blocks.VectorQuery{Vector: q, TopK: 10, Filter: f}))
		for _, id := range got {
			if slices.Contains(want, id) {
				hits++
			}
		}
	}
	return float64(hits) / float64(10*len(qs))
}

// TestCollectionRecall checks the approximate index (the embedded HNSW
// graph, or pgvector's) against exact search on random vectors, the
// hardest case for a graph: recall@10 of at least 0.95.
func TestCollectionRecall(t *testing.T) {
	const n, dims, queries = 6000, 128, 60
	vs := randomVectors(52, n, dims)
	qs := randomVectors(53, queries, dims)
	s := openStore(t)
	c := openCollection(t, s, "random", dims, blocks.DistanceCosine)
	for lo := 0; lo < n; lo += 500 {
		var batch []blocks.VectorItem
		for i := lo; i < lo+500; i++ {
			batch = append(batch, item(strconv.Itoa(i), vs[i], "", map[string]any{"half": float64(i % 2)}))
		}
		upsert(t, c, nil, batch...)
	}
	r := recall(t, c, vs, qs, nil)
	t.Logf("recall@10 = %.3f over %d vectors of %d dimensions", r, n, dims)
	if r < 0.95 {
		t.Errorf("recall@10 = %.3f, want at least 0.95", r)
	}
}

// The kill -9 test re-executes the test binary as an ingesting child
// (TestCollectionIngestChild): documents of ingestChunks chunks, each
// upserted with its replace, all its chunks carrying the round that
// wrote them, over and over until it is killed.
const (
	ingestDirEnv = "FLOWCTL_STATE_TEST_INGEST_DIR"
	ingestDocs   = 20
	ingestChunks = 25
	ingestDims   = 32
)

func TestCollectionIngestChild(t *testing.T) {
	dir := os.Getenv(ingestDirEnv)
	if dir == "" {
		t.Skip("the ingesting child of TestCollectionKilledIngest")
	}
	if err := ingestChild(dir, 0); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// ingestChild upserts the documents, round after round (rounds 0: until
// killed), printing "round N" as each round begins.
func ingestChild(dir string, rounds int) error {
	var s *Store
	var err error
	if url := os.Getenv(ingestURLEnv); url != "" {
		s, err = OpenURL(url)
	} else {
		s, err = Open(dir)
	}
	if err != nil {
		return err
	}
	defer s.Close()
	c, err := s.Collection(ctx0, blocks.CollectionSpec{Name: "ingest", Dimensions: ingestDims, Distance: blocks.DistanceCosine})
	if err != nil {
		return err
	}
	for round := 1; rounds == 0 || round <= rounds; round++ {
		fmt.Println("round", round)
		vs := randomVectors(uint64(round), ingestDocs*ingestChunks, ingestDims)
		for d := range ingestDocs {
			source := fmt.Sprintf("doc%02d.md", d)
			// A document has fewer chunks in even rounds: the replace
			// removes the others.
			chunks := ingestChunks - (round%2)*5
			items := make([]blocks.VectorItem, chunks)
			for i := range items {
				items[i] = item(fmt.Sprintf("%s#%d", source, i), vs[d*ingestChunks+i], source,
					map[string]any{"source": source, "round": float64(round)})
			}
			if err := c.Upsert(ctx0, items, blocks.Filter{{Key: "source", Eq: source}}); err != nil {
				return err
			}
		}
	}
	return nil
}

const ingestURLEnv = "FLOWCTL_STATE_TEST_INGEST_URL"

// TestCollectionKilledIngest kills an ingesting process (SIGKILL) at
// random moments, then checks that each document is whole, all its
// chunks of one round and as many as that round wrote, by a search
// through the index; an ingest started again finishes.
func TestCollectionKilledIngest(t *testing.T) {
	dir := t.TempDir()
	env := []string{ingestDirEnv + "=" + dir}
	url := pgURLOf(t, dir)
	if url != "" {
		env = append(env, ingestURLEnv+"="+url)
	}
	for kill := range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCollectionIngestChild$")
		cmd.Env = append(os.Environ(), env...)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 64)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Let it write into a round or two, then kill it mid-document.
		wantRound := fmt.Sprintf("round %d", 2+kill%2)
		timeout := time.After(2 * time.Minute)
	wait:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatal("the child ended before being killed")
				}
				if strings.HasPrefix(l, "error:") {
					t.Fatalf("child: %s", l)
				}
				if l == wantRound {
					break wait
				}
			case <-timeout:
				cmd.Process.Kill()
				t.Fatal("the child did not reach " + wantRound)
			}
		}
		time.Sleep(time.Duration(rand.IntN(200)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		for range lines {
		}
		cmd.Wait()
		checkWholeDocuments(t, dir, url, false)
	}
	// Resume: the ingest started again finishes, and every document is
	// of its last round.
	t.Setenv(ingestURLEnv, url)
	if err := ingestChild(dir, 2); err != nil {
		t.Fatal(err)
	}
	checkWholeDocuments(t, dir, url, true)
}

// pgURLOf is the URL of dir's schema when the suite runs on PostgreSQL
// (openAny's); "" on SQLite.
func pgURLOf(t testing.TB, dir string) string {
	return pgtest.URL(t, "t"+strconv.FormatUint(uint64(keyHash(dir)), 16))
}

// checkWholeDocuments opens the state a killed child left and searches
// each document's chunks.
func checkWholeDocuments(t *testing.T, dir, url string, finished bool) {
	t.Helper()
	var s *Store
	var err error
	if url != "" {
		s, err = OpenURL(url)
	} else {
		s, err = Open(dir)
	}
	if err != nil {
		t.Fatalf("opening the state after the kill: %v", err)
	}
	defer s.Close()
	c := openCollection(t, s, "ingest", ingestDims, blocks.DistanceCosine)
	q := randomVectors(99, 1, ingestDims)[0]
	for d := range ingestDocs {
		source := fmt.Sprintf("doc%02d.md", d)
		ms := search(t, c, blocks.VectorQuery{Vector: q, TopK: 100, Filter: blocks.Filter{{Key: "source", Eq: source}}})
		if len(ms) == 0 {
			// Every document was written whole in round 1, before the
			// kill.
			t.Errorf("%s: no chunks", source)
			continue
		}
		round := ms[0].Metadata["round"].(float64)
		want := ingestChunks - (int(round)%2)*5
		for _, m := range ms {
			if m.Metadata["round"] != round {
				t.Errorf("%s: chunks of rounds %v and %v visible together", source, round, m.Metadata["round"])
				break
			}
		}
		if len(ms) != want {
			t.Errorf("%s: %d chunks of round %v, want %d", source, len(ms), round, want)
		}
		if finished && round != 2 {
			t.Errorf("%s: of round %v after the finished ingest, want 2", source, round)
		}
	}
}

// TestCollectionGraphSaved: the embedded graph saved when the store
// closes is loaded when it opens again, an older saved graph is brought
// up to date from the rows (as after a crash between saves), and a
// damaged one is made again from them.
func TestCollectionGraphSaved(t *testing.T) {
	dir := t.TempDir()
	const n, dims = exactBelow + 1000, 16
	vs := randomVectors(7, n, dims)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := openCollection(t, s, "saved", dims, blocks.DistanceCosine)
	var items []blocks.VectorItem
	for i, v := range vs {
		items = append(items, item(strconv.Itoa(i), v, "t"+strconv.Itoa(i), nil))
	}
	upsert(t, c, nil, items...)
	q := randomVectors(8, 1, dims)[0]
	want := ids(search(t, c, blocks.VectorQuery{Vector: q, TopK: 10}))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	path := snapshotPath(s, "saved")
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no saved graph: %v", err)
	}

	reopen := func() (*Store, blocks.Collection) {
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return s, openCollection(t, s, "saved", dims, blocks.DistanceCosine)
	}
	s, c = reopen()
	if got := ids(search(t, c, blocks.VectorQuery{Vector: q, TopK: 10})); !slices.Equal(got, want) {
		t.Fatalf("loaded graph: %v, want %v", got, want)
	}
	// Changes after the save: the nearest item goes, q itself comes.
	upsert(t, c, nil, item("q", q, "the query", nil))
	if _, err := c.Delete(ctx0, []string{want[0]}, nil); err != nil {
		t.Fatal(err)
	}
	after := ids(search(t, c, blocks.VectorQuery{Vector: q, TopK: 10}))
	if after[0] != "q" || slices.Contains(after, want[0]) {
		t.Fatalf("after the changes: %v", after)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for name, graph := range map[string][]byte{"older": old, "damaged": old[:len(old)/2]} {
		if err := os.WriteFile(path, graph, 0o644); err != nil {
			t.Fatal(err)
		}
		s, c = reopen()
		if got := ids(search(t, c, blocks.VectorQuery{Vector: q, TopK: 10})); !slices.Equal(got, after) {
			t.Errorf("%s graph: %v, want %v", name, got, after)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPostgresSearchSettings: every connection of a PostgreSQL state has
// pgvector's search settings, so that a search is one statement.
func TestPostgresSearchSettings(t *testing.T) {
	url := os.Getenv(pgtest.EnvURL)
	if url == "" {
		t.Skip("no PostgreSQL (" + pgtest.EnvURL + ")")
	}
	s := openStore(t)
	for name, want := range pgSearchSettings {
		var got string
		if err := s.db.QueryRow(`SELECT current_setting('` + name + `')`).Scan(&got); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
}
