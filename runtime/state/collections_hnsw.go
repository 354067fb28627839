package state

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/runtime/state/internal/hnsw"
	"github.com/viterin/vek/vek32"
)

// The HNSW graph's parameters: M neighbours a node (2M on layer 0), the
// candidates an insertion and a search keep (a search at least top_k).
// With these, recall@10 over random vectors is above 0.95
// (TestCollectionRecall, and bench/retrieval over 100,000 of 768
// dimensions).
const (
	hnswM              = 16
	hnswEfConstruction = 64
	hnswEfSearch       = 200
)

// exactBelow is how many items a filter may leave for a search to compare
// them all instead of walking the graph: exact, and cheap at that size.
const exactBelow = 4096

// snapshotEvery is how many changed items since the graph was last saved
// make it save again (beyond half the collection's size).
const snapshotEvery = 20000

// The distances, with vek's SIMD arithmetic. Under the cosine distance the
// graph holds unit vectors (unit), and the distance is 1 - their dot
// product.
func cosineDistance(a, b []float32) float32    { return 1 - vek32.Dot(a, b) }
func euclideanDistance(a, b []float32) float32 { return vek32.Distance(a, b) }
func dotDistance(a, b []float32) float32       { return -vek32.Dot(a, b) }

// unit is v scaled to length 1 for the cosine distance, in place when
// inPlace (a vector the caller owns), else in a new slice; v itself for
// the other distances.
func unit(distance string, v []float32, inPlace bool) []float32 {
	if distance != blocks.DistanceCosine {
		return v
	}
	n := vek32.Norm(v)
	switch {
	case n == 0:
		return v
	case inPlace:
		vek32.DivNumber_Inplace(v, n)
		return v
	}
	return vek32.DivNumber(v, n)
}

func distanceFunc(d string) hnsw.Distance {
	switch d {
	case blocks.DistanceEuclidean:
		return euclideanDistance
	case blocks.DistanceDot:
		return dotDistance
	}
	return cosineDistance
}

// hnswIndex is an embedded collection's graph and its items' texts and
// metadata, as of revision rev of the rows.
//
// The graph's nodes are numbered, a node for each version of an item: an
// item replaced or removed leaves its old node in the graph, dead, and a
// search passes over the dead. The graph is made again from the live
// items once the dead are a quarter of it.
type hnswIndex struct {
	c *collection

	mu    sync.RWMutex
	graph *hnsw.Graph
	items map[string]*hnswItem
	ids   map[uint32]string // the live nodes' items
	rev   int64
	// saved is the revision of the graph last saved; changed counts the
	// items changed since.
	saved   int64
	changed int
}

type hnswItem struct {
	node     uint32
	text     string
	metadata map[string]any
}

// snapshotHeader leads a saved graph: what it is a graph of, and the
// node of each item.
type snapshotHeader struct {
	Rev        int64             `json:"rev"`
	Dimensions int               `json:"dimensions"`
	Distance   string            `json:"distance"`
	Nodes      map[string]uint32 `json:"nodes"`
}

func newGraph(c *collection) *hnsw.Graph {
	return hnsw.New(c.spec.Dimensions, distanceFunc(c.spec.Distance), hnswM, hnswEfConstruction, graphSeed(c))
}

// graphSeed draws the graph's layers from the collection's name: the same
// items give the same graph.
func graphSeed(c *collection) uint64 {
	h := fnv.New64a()
	h.Write([]byte(c.spec.Name))
	return h.Sum64()
}

// snapshotPath is where a collection's graph is saved.
func snapshotPath(s *Store, name string) string {
	return filepath.Join(filepath.Dir(s.path), "collections", name+".hnsw")
}

func removeSnapshot(s *Store, name string) { os.Remove(snapshotPath(s, name)) }

func (ix *hnswIndex) reset() {
	ix.graph, ix.items, ix.ids = newGraph(ix.c), map[string]*hnswItem{}, map[uint32]string{}
	ix.rev, ix.saved = 0, 0
}

// openHNSW loads the collection's saved graph, when there is one that
// fits, and brings it up to date with the rows.
func openHNSW(ctx context.Context, c *collection) (*hnswIndex, error) {
	ix := &hnswIndex{c: c}
	ix.reset()
	h, g, err := loadSnapshot(c)
	if err == nil {
		ix.graph, ix.rev, ix.saved = g, h.Rev, h.Rev
	}
	// The texts and metadata of the items the saved graph holds come from
	// the rows; any row of a later revision is replayed by sync.
	rows, err := c.s.db.QueryContext(ctx, `SELECT id, text, metadata FROM collection_items WHERE collection = ? AND live = 1 AND rev <= ?`,
		c.spec.Name, ix.rev)
	if err != nil {
		return nil, fmt.Errorf("opening collection %q: %w", c.spec.Name, err)
	}
	defer rows.Close()
	fits := true
	for rows.Next() {
		var id, text, meta string
		if err := rows.Scan(&id, &text, &meta); err != nil {
			return nil, fmt.Errorf("opening collection %q: %w", c.spec.Name, err)
		}
		m, err := decodeMetadata(meta)
		if err != nil {
			return nil, fmt.Errorf("opening collection %q: item %q: %w", c.spec.Name, id, err)
		}
		node, ok := h.Nodes[id]
		if !ok || int(node) >= ix.graph.Len() {
			fits = false
		}
		ix.items[id] = &hnswItem{node: node, text: text, metadata: m}
		ix.ids[node] = id
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("opening collection %q: %w", c.spec.Name, err)
	}
	if !fits || len(ix.items) != len(h.Nodes) {
		// A graph that does not hold what its revision's rows hold (a
		// state restored from an older copy): made again from the rows.
		ix.reset()
	}
	if err := ix.sync(ctx); err != nil {
		return nil, err
	}
	return ix, nil
}

// loadSnapshot reads the collection's saved graph.
func loadSnapshot(c *collection) (snapshotHeader, *hnsw.Graph, error) {
	var h snapshotHeader
	f, err := os.Open(snapshotPath(c.s, c.spec.Name))
	if err != nil {
		return h, nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return h, nil, err
	}
	if err := json.Unmarshal(line, &h); err != nil {
		return h, nil, err
	}
	if h.Dimensions != c.spec.Dimensions || h.Distance != c.spec.Distance {
		return snapshotHeader{}, nil, errors.New("a graph of another collection")
	}
	g, err := hnsw.Read(r, distanceFunc(c.spec.Distance), graphSeed(c)+uint64(h.Rev))
	if err != nil {
		return snapshotHeader{}, nil, err
	}
	return h, g, nil
}

// sync applies the rows of the revisions the graph has not seen: this
// store's own changes, and those of other processes sharing the state.
func (ix *hnswIndex) sync(ctx context.Context) error {
	var latest int64
	if err := ix.c.s.db.scanRow(ctx, `SELECT rev FROM collections WHERE name = ?`, []any{ix.c.spec.Name}, &latest); err != nil {
		return fmt.Errorf("reading collection %q: %w", ix.c.spec.Name, err)
	}
	ix.mu.RLock()
	current := ix.rev
	ix.mu.RUnlock()
	if latest <= current {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if latest <= ix.rev || ix.graph == nil {
		return nil
	}
	rows, err := ix.c.s.db.QueryContext(ctx, `SELECT id, rev, live, text, metadata, vector FROM collection_items
WHERE collection = ? AND rev > ? AND rev <= ? ORDER BY rev`, ix.c.spec.Name, ix.rev, latest)
	if err != nil {
		return fmt.Errorf("reading collection %q: %w", ix.c.spec.Name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, text, meta string
		var rev int64
		var live int
		var blob []byte
		if err := rows.Scan(&id, &rev, &live, &text, &meta, &blob); err != nil {
			return fmt.Errorf("reading collection %q: %w", ix.c.spec.Name, err)
		}
		ix.changed++
		if old := ix.items[id]; old != nil {
			delete(ix.ids, old.node)
			delete(ix.items, id)
		}
		if live == 0 {
			continue
		}
		v, err := decodeVector(blob)
		if err == nil && len(v) != ix.c.spec.Dimensions {
			err = fmt.Errorf("a stored vector has %d dimensions", len(v))
		}
		if err != nil {
			return fmt.Errorf("reading collection %q: item %q: %w", ix.c.spec.Name, id, err)
		}
		m, err := decodeMetadata(meta)
		if err != nil {
			return fmt.Errorf("reading collection %q: item %q: %w", ix.c.spec.Name, id, err)
		}
		node := ix.graph.Add(unit(ix.c.spec.Distance, v, true))
		ix.items[id] = &hnswItem{node: node, text: text, metadata: m}
		ix.ids[node] = id
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading collection %q: %w", ix.c.spec.Name, err)
	}
	ix.rev = latest
	if dead := ix.graph.Len() - len(ix.items); dead > 0 && dead >= max(256, ix.graph.Len()/4) {
		ix.rebuild()
	}
	if ix.changed >= max(snapshotEvery, len(ix.items)/2) {
		return ix.saveLocked()
	}
	return nil
}

// rebuild makes the graph again from its live nodes.
func (ix *hnswIndex) rebuild() {
	g := newGraph(ix.c)
	nodes := make([]uint32, 0, len(ix.ids))
	for n := range ix.ids {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	ids := make(map[uint32]string, len(nodes))
	for _, n := range nodes {
		id := ix.ids[n]
		m := g.Add(ix.graph.Vector(n))
		ix.items[id].node = m
		ids[m] = id
	}
	ix.graph, ix.ids = g, ids
	ix.changed = max(ix.changed, snapshotEvery)
}

// save writes the graph when it changed since it was last saved.
func (ix *hnswIndex) save() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.saveLocked()
}

// saveLocked writes the graph to a new file and renames it over the
// old, so that a crash leaves one or the other whole.
func (ix *hnswIndex) saveLocked() error {
	if ix.rev == ix.saved || ix.graph == nil {
		return nil
	}
	path := snapshotPath(ix.c.s, ix.c.spec.Name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("saving collection %q: %w", ix.c.spec.Name, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ix.c.spec.Name+".*.tmp")
	if err != nil {
		return fmt.Errorf("saving collection %q: %w", ix.c.spec.Name, err)
	}
	defer os.Remove(f.Name())
	w := bufio.NewWriterSize(f, 1<<20)
	nodes := make(map[string]uint32, len(ix.items))
	for id, it := range ix.items {
		nodes[id] = it.node
	}
	h, _ := json.Marshal(snapshotHeader{Rev: ix.rev, Dimensions: ix.c.spec.Dimensions, Distance: ix.c.spec.Distance, Nodes: nodes})
	err = writeAll(w, append(h, '\n'))
	if err == nil {
		_, err = ix.graph.WriteTo(w)
	}
	err = errors.Join(err, w.Flush(), f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("saving collection %q: %w", ix.c.spec.Name, err)
	}
	ix.saved, ix.changed = ix.rev, 0
	return nil
}

func writeAll(w io.Writer, b []byte) error {
	_, err := w.Write(b)
	return err
}

// remove forgets the graph of a deleted collection.
func (ix *hnswIndex) remove() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.graph, ix.items, ix.ids = nil, nil, nil
	ix.saved = ix.rev
}

// search finds the k items nearest v that match f: by comparing them
// all when the collection, or what the filter leaves of it, is small; by
// the graph otherwise.
func (ix *hnswIndex) search(ctx context.Context, v []float32, k int, f blocks.Filter) ([]blocks.VectorMatch, error) {
	if err := ix.sync(ctx); err != nil {
		return nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.graph == nil || len(ix.items) == 0 {
		return nil, nil
	}
	dist := distanceFunc(ix.c.spec.Distance)
	v = unit(ix.c.spec.Distance, v, false)
	match := func(id string, it *hnswItem, d float32) blocks.VectorMatch {
		return blocks.VectorMatch{ID: id, Score: score(ix.c.spec.Distance, float64(d)), Text: it.text, Metadata: it.metadata}
	}
	matching := len(ix.items)
	if len(f) > 0 {
		matching = 0
		for _, it := range ix.items {
			if f.Match(it.metadata) {
				matching++
			}
		}
		if matching == 0 {
			return nil, nil
		}
	}
	if matching <= exactBelow || matching <= k {
		out := make([]blocks.VectorMatch, 0, matching)
		for id, it := range ix.items {
			if f.Match(it.metadata) {
				out = append(out, match(id, it, dist(v, ix.graph.Vector(it.node))))
			}
		}
		return best(out, k), nil
	}
	// Walk the graph for enough candidates that k of them are live and
	// match, more each time they are not.
	total := ix.graph.Len()
	for want := k * total / matching; ; want *= 2 {
		want = min(want, total)
		var out []blocks.VectorMatch
		for _, n := range ix.graph.Search(v, want, max(hnswEfSearch, want)) {
			id, live := ix.ids[n.Node]
			if !live {
				continue
			}
			if it := ix.items[id]; f.Match(it.metadata) {
				out = append(out, match(id, it, n.Distance))
			}
		}
		if len(out) >= k || want == total {
			return best(out, k), nil
		}
	}
}

// best sorts matches, best first (then by id), and keeps k.
func best(ms []blocks.VectorMatch, k int) []blocks.VectorMatch {
	slices.SortFunc(ms, func(a, b blocks.VectorMatch) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if len(ms) > k {
		ms = ms[:k]
	}
	return ms
}

// texts are the items that match f, for BM25.
func (ix *hnswIndex) texts(ctx context.Context, f blocks.Filter) ([]blocks.VectorMatch, error) {
	if err := ix.sync(ctx); err != nil {
		return nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]blocks.VectorMatch, 0, len(ix.items))
	for id, it := range ix.items {
		if ix.graph != nil && f.Match(it.metadata) {
			out = append(out, blocks.VectorMatch{ID: id, Text: it.text, Metadata: it.metadata})
		}
	}
	slices.SortFunc(out, func(a, b blocks.VectorMatch) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}
