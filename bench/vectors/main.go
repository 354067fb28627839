// Command vectors measures the vector collections as vector_search
// runs them: a collection of the state (the embedded HNSW graph, or
// pgvector with -state postgres://...) filled with random vectors (a
// fixed seed: random vectors are the hardest case for a graph), then
// searched with top_k = 10. It prints the time to fill it, the p50 and p95
// of a search, recall@10 against exact search (every vector compared),
// the time to open the collection again (the embedded graph loaded from
// its saved file), and the process's peak RSS. The bench keeps no copy
// of the vectors: it draws them again, in the same order, for the exact
// search, so that the peak RSS is the collection's.
//
//	go run ./bench/vectors [-n 100000] [-dims 768] [-queries 200] [-state postgres://...]
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	goruntime "runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/flowctl/flowctl/bench/benchutil"
	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/runtime/state"
)

var (
	n       = flag.Int("n", 100000, "vectors in the collection")
	dims    = flag.Int("dims", 768, "their dimensions")
	queries = flag.Int("queries", 200, "searches timed")
	exact   = flag.Int("exact", 100, "searches checked against exact search")
	batch   = flag.Int("batch", 500, "vectors an upsert stores")
	dbURL   = flag.String("state", "", "a PostgreSQL URL; default: a new embedded state")
	groups  = flag.Int("clusters", 0, "draw the vectors around this many centres, as embeddings of related texts gather (0: uniformly random)")
)

func main() {
	flag.Parse()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "flowctl-bench-retrieval-")
	benchutil.Check(err)
	defer os.RemoveAll(dir)
	open := func() *state.Store {
		if *dbURL != "" {
			s, err := state.OpenURLWith(*dbURL, state.Options{Migrate: true})
			benchutil.Check(err)
			return s
		}
		s, err := state.Open(dir)
		benchutil.Check(err)
		return s
	}
	spec := blocks.CollectionSpec{Name: fmt.Sprintf("bench_%d_%d", *n, *dims), Dimensions: *dims, Distance: blocks.DistanceCosine}
	s := open()
	if *dbURL != "" {
		benchutil.Check(s.DeleteCollection(ctx, spec.Name))
	}
	c, err := s.Collection(ctx, spec)
	benchutil.Check(err)

	vs := newStream(1, *dims)
	start := time.Now()
	for lo := 0; lo < *n; lo += *batch {
		items := make([]blocks.VectorItem, 0, *batch)
		for i := lo; i < min(lo+*batch, *n); i++ {
			items = append(items, blocks.VectorItem{ID: strconv.Itoa(i), Vector: vs.next(), Text: "chunk " + strconv.Itoa(i),
				Metadata: map[string]any{"source": "doc" + strconv.Itoa(i/20) + ".md"}})
		}
		benchutil.Check(c.Upsert(ctx, items, nil))
	}
	fill := time.Since(start)
	var before goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	if p := os.Getenv("BENCH_MEMPROFILE"); p != "" {
		f, err := os.Create(p)
		benchutil.Check(err)
		benchutil.Check(pprof.WriteHeapProfile(f))
		benchutil.Check(f.Close())
	}
	fmt.Printf("filled %d vectors of %d dimensions in %s (%.0f a second)\n", *n, *dims, fill.Round(time.Millisecond), float64(*n)/fill.Seconds())

	qs := make([][]float32, *queries)
	qstream := newStream(2, *dims)
	for i := range qs {
		qs[i] = qstream.next()
	}
	search := func(c blocks.Collection) ([]time.Duration, [][]string) {
		var lat []time.Duration
		var found [][]string
		for _, q := range qs {
			t := time.Now()
			ms, err := c.Search(ctx, blocks.VectorQuery{Vector: q, TopK: 10})
			lat = append(lat, time.Since(t))
			benchutil.Check(err)
			ids := make([]string, len(ms))
			for i, m := range ms {
				ids[i] = m.ID
			}
			found = append(found, ids)
		}
		return lat, found
	}
	fmt.Printf("Go heap in use after filling: %d MB (the vectors alone are %d MB)\n", before.HeapInuse>>20, *n**dims*4>>20)
	search(c) // warm
	lat, found := search(c)
	report("search top_k=10", lat)

	hits := 0
	checked := min(*exact, len(qs))
	wants := exactTop(newStream(1, *dims), *n, qs[:checked], 10)
	for i := range checked {
		want := wants[i]
		for _, id := range found[i] {
			if slices.Contains(want, id) {
				hits++
			}
		}
	}
	fmt.Printf("recall@10 = %.3f over %d searches against exact search\n", float64(hits)/float64(10*checked), checked)

	benchutil.Check(s.Close())
	start = time.Now()
	s = open()
	c, err = s.Collection(ctx, spec)
	benchutil.Check(err)
	fmt.Printf("opened again in %s\n", time.Since(start).Round(time.Millisecond))
	lat, _ = search(c)
	report("search after reopening", lat)
	benchutil.Check(s.Close())

	var ru syscall.Rusage
	benchutil.Check(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	fmt.Printf("peak RSS of the process: %d MB (the %d vectors alone are %d MB)\n", ru.Maxrss/1024, *n, *n**dims*4>>20)
}

func report(what string, lat []time.Duration) {
	slices.Sort(lat)
	fmt.Printf("%s: p50 %s, p95 %s over %d searches\n", what,
		lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*95/100].Round(time.Microsecond), len(lat))
}

// A stream draws vectors of d dimensions, the same ones for the same
// seed: each coordinate normal, or, with -clusters, a random centre's
// plus a normal noise of half its spread.
type stream struct {
	r       *rand.Rand
	d       int
	centres [][]float32
}

func newStream(seed uint64, d int) *stream {
	s := &stream{r: rand.New(rand.NewPCG(seed, seed)), d: d}
	if *groups > 0 {
		cr := rand.New(rand.NewPCG(7, 7))
		s.centres = make([][]float32, *groups)
		for i := range s.centres {
			s.centres[i] = make([]float32, d)
			for j := range s.centres[i] {
				s.centres[i][j] = float32(cr.NormFloat64())
			}
		}
	}
	return s
}

func (s *stream) next() []float32 {
	v := make([]float32, s.d)
	var c []float32
	if s.centres != nil {
		c = s.centres[s.r.IntN(len(s.centres))]
	}
	for j := range v {
		v[j] = float32(s.r.NormFloat64())
		if c != nil {
			v[j] = c[j] + 0.5*v[j]
		}
	}
	return v
}

// exactTop is the k nearest of the n vectors vs draws to each query by
// cosine similarity, every vector compared, in one pass over them.
func exactTop(vs *stream, n int, qs [][]float32, k int) [][]string {
	type sc struct {
		i int
		s float64
	}
	norms := make([]float64, len(qs))
	for i, q := range qs {
		for _, x := range q {
			norms[i] += float64(x) * float64(x)
		}
	}
	best := make([][]sc, len(qs)) // each sorted best first, at most k
	for i := range n {
		v := vs.next()
		var nv float64
		for _, x := range v {
			nv += float64(x) * float64(x)
		}
		for qi, q := range qs {
			var dot float64
			for j := range v {
				dot += float64(v[j]) * float64(q[j])
			}
			s := dot / math.Sqrt(nv*norms[qi])
			b := best[qi]
			if len(b) == k && s <= b[k-1].s {
				continue
			}
			at, _ := slices.BinarySearchFunc(b, s, func(e sc, s float64) int { return cmp.Compare(s, e.s) })
			b = slices.Insert(b, at, sc{i, s})
			best[qi] = b[:min(len(b), k)]
		}
	}
	out := make([][]string, len(qs))
	for qi, b := range best {
		for _, e := range b {
			out[qi] = append(out[qi], strconv.Itoa(e.i))
		}
	}
	return out
}
