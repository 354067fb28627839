package compiler

import "sort"

// The one cycle finder of the compiler, for the steps' graph and the
// locals'. A graph is nodes 0..n-1 and a function giving each node's
// dependencies.

// components returns the strongly connected components of a graph
// (Tarjan's algorithm), each sorted, in the order of their first nodes.
func components(n int, deps func(int) []int) [][]int {
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var out [][]int
	next := 0
	var connect func(v int)
	connect = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, d := range deps(v) {
			switch {
			case index[d] < 0:
				connect(d)
				low[v] = min(low[v], low[d])
			case onStack[d]:
				low[v] = min(low[v], index[d])
			}
		}
		if low[v] == index[v] {
			var scc []int
			for {
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[top] = false
				scc = append(scc, top)
				if top == v {
					break
				}
			}
			sort.Ints(scc)
			out = append(out, scc)
		}
	}
	for v := range n {
		if index[v] < 0 {
			connect(v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// cyclic reports whether a component holds a cycle: more than one node, or
// one that depends on itself.
func cyclic(scc []int, deps func(int) []int) bool {
	if len(scc) > 1 {
		return true
	}
	for _, d := range deps(scc[0]) {
		if d == scc[0] {
			return true
		}
	}
	return false
}

// cycleThrough finds a cycle through the first node of a component,
// following dependencies inside it; the component itself when none is
// found.
func cycleThrough(scc []int, deps func(int) []int) []int {
	in := map[int]bool{}
	for _, v := range scc {
		in[v] = true
	}
	start := scc[0]
	visited := map[int]bool{}
	var path []int
	var dfs func(v int) bool
	dfs = func(v int) bool {
		path = append(path, v)
		visited[v] = true
		for _, d := range deps(v) {
			if d == start {
				return true
			}
			if in[d] && !visited[d] && dfs(d) {
				return true
			}
		}
		path = path[:len(path)-1]
		return false
	}
	if dfs(start) {
		return path
	}
	return scc
}
