package digraph

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestSCC(t *testing.T) {
	// 0 → 1 → 2 → 0, 3 → 4 → 3, 5 alone with a self-edge, 2 → 3, 6.
	adj := [][]int{{1}, {2}, {0, 3}, {4}, {3}, {5}, nil}
	want := [][]int{{0, 1, 2}, {3, 4}, {5}, {6}}
	if got := SCC(adj); !reflect.DeepEqual(got, want) {
		t.Errorf("SCC = %v, want %v", got, want)
	}
	if got := Cycles(adj); !reflect.DeepEqual(got, [][]int{{0, 1, 2}, {3, 4}}) {
		t.Errorf("Cycles = %v", got)
	}
	if got := Cycles(nil); len(got) != 0 {
		t.Errorf("Cycles(nil) = %v", got)
	}
}

// SCC agrees with the definition (u and v in one component iff each
// reaches the other) on random graphs.
func TestSCCRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		n := 1 + r.IntN(25)
		adj := make([][]int, n)
		for v := range adj {
			for range r.IntN(3) {
				adj[v] = append(adj[v], r.IntN(n))
			}
		}
		reach := make([][]bool, n)
		for s := range n {
			reach[s] = make([]bool, n)
			reach[s][s] = true
			stack := []int{s}
			for len(stack) > 0 {
				v := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, w := range adj[v] {
					if !reach[s][w] {
						reach[s][w] = true
						stack = append(stack, w)
					}
				}
			}
		}
		comp := make([]int, n)
		seen := 0
		for i, c := range SCC(adj) {
			for _, v := range c {
				comp[v] = i
				seen++
			}
		}
		if seen != n {
			t.Fatalf("%v: %d nodes in components, want %d", adj, seen, n)
		}
		for u := range n {
			for v := range n {
				if (comp[u] == comp[v]) != (reach[u][v] && reach[v][u]) {
					t.Fatalf("%v: %d and %d", adj, u, v)
				}
			}
		}
	}
}

func TestShortestCycle(t *testing.T) {
	// A long way round 0 → 1 → 2 → 3 → 0 and a short one 0 → 4 → 0; 5
	// would make 0 → 5 → 0 but is outside.
	adj := [][]int{{1, 5, 4}, {2}, {3}, {0}, {0}, {0}}
	in := func(v int) bool { return v != 5 }
	out := func(v int) []int { return adj[v] }
	id := func(w int) int { return w }
	got := ShortestCycle(0, out, id, in)
	if s := fmt.Sprint(got); s != "[{0 4} {4 0}]" {
		t.Errorf("ShortestCycle = %s", s)
	}
	if got := ShortestCycle(1, out, id, func(v int) bool { return v != 0 }); got != nil {
		t.Errorf("a cycle without 0: %v", got)
	}
	// Edges of any type: the hop carries it.
	type edge struct {
		to   int
		decl string
	}
	eadj := [][]edge{{{1, "a"}}, {{0, "b"}, {0, "c"}}}
	hops := ShortestCycle(0, func(v int) []edge { return eadj[v] }, func(e edge) int { return e.to }, func(int) bool { return true })
	if s := fmt.Sprint(hops); s != "[{0 {1 a}} {1 {0 b}}]" {
		t.Errorf("first edge in order not taken: %s", s)
	}
}
