package angara

import (
	"slices"
	"sort"

	"flitsim/fabric"
)

// GeneticOptions are the parameters of §4.2's genetic algorithm (zero
// values take the paper's).
type GeneticOptions struct {
	Options
	// Seed selects the random stream ("angara/genetic").
	Seed uint64
	// Population is the number of chromosomes (paper: 100).
	Population int
	// Mutation is the probability that a child's gene changes (paper: 0.02).
	Mutation float64
	// Patience stops the search after this many generations without a
	// better best chromosome (paper: 30).
	Patience int
	// MinGain, if positive, also stops the search at the first generation
	// that improves the best fitness by less than this fraction of it: the
	// paper's second rule ("or if the fitness value of next best solution
	// less then 0.05 of fitness value of global best solution", read as a
	// relative gain below 5 %; a generation without gain is left to
	// Patience). 0 (the default) leaves Patience alone.
	MinGain float64
	// MaxGenerations bounds the search (0: 10,000).
	MaxGenerations int
	// MaxVariants bounds the minimal routes enumerated per pair (0: 64).
	MaxVariants int
}

// DefaultGenetic returns the paper's parameters.
func DefaultGenetic() GeneticOptions {
	return GeneticOptions{Population: 100, Mutation: 0.02, Patience: 30}
}

// variant is one minimal route of a pair.
type variant struct {
	hops   []Dir
	fs, ls bool
}

// variants returns the distinct minimal routes of every pair of nodes
// (at most max per pair), pairs in source-major order: the minimal paths
// of the paper's graph g, a route spelt twice kept once.
func variants(g *Graph, nodes []int, maxPer int) (pairs [][2]int, vars [][]variant) {
	t := g.T
	c := NewCounter(g)
	var hops []Dir
	for _, s := range nodes {
		c.From(s)
		for _, w := range nodes {
			if w == s {
				continue
			}
			h, _ := c.Paths(w)
			if h < 0 {
				continue
			}
			var vs []variant
			seen := map[string]bool{}
			var walk func(u, st int, first int)
			walk = func(u, st, first int) {
				if len(vs) >= maxPer {
					return
				}
				if len(hops) == h {
					if u == w && g.endsAt(st) && !seen[string(hops)] {
						seen[string(hops)] = true
						ls := st >= t.n+g.p3 && st < g.End()
						vs = append(vs, variant{hops: slices.Clone(hops), fs: first >= 1 && first <= t.n, ls: ls})
					}
					return
				}
				if len(hops)+t.Distance(u, w) > h {
					return
				}
				g.Succ(u, st, func(u2, st2 int, d Dir) {
					if d == noStep {
						return
					}
					if len(hops) == 0 {
						first = st2
					}
					hops = append(hops, d)
					walk(u2, st2, first)
					hops = hops[:len(hops)-1]
				})
			}
			hops = hops[:0]
			walk(s, 0, -1)
			pairs = append(pairs, [2]int{s, w})
			vars = append(vars, vs)
		}
	}
	return pairs, vars
}

// Genetic is §4.2's algorithm: a chromosome holds one minimal route per
// pair (a gene: the index of one of the pair's routes); the first
// generation is random; each generation pairs random parents (panmixia)
// for two-point crossover, mutates each child gene with probability
// Mutation, and keeps the Population best of parents and children by
// fitness σ(4, R); it stops after Patience generations without a better
// best. Seeded: the same options give the same routes.
func Genetic(t *Torus, o GeneticOptions) *Routes {
	def := DefaultGenetic()
	if o.Population == 0 {
		o.Population = def.Population
	}
	if o.Mutation == 0 {
		o.Mutation = def.Mutation
	}
	if o.Patience == 0 {
		o.Patience = def.Patience
	}
	o.Population = max(o.Population, 2)
	if o.MaxGenerations == 0 {
		o.MaxGenerations = 10000
	}
	if o.MaxVariants == 0 {
		o.MaxVariants = 64
	}
	o.MaxVariants = min(o.MaxVariants, 255) // a gene is a uint8
	g := NewGraph(t, t.Augment(o.Turns), false)
	nodes := o.nodes(t)
	pairs, vars := variants(g, nodes, o.MaxVariants)
	rng := fabric.Stream(o.Seed, "angara/genetic")
	// Channels per gene choice, for the fitness.
	chans := make([][][]int32, len(pairs))
	for i, p := range pairs {
		chans[i] = make([][]int32, len(vars[i]))
		for j, v := range vars[i] {
			s := p[0]
			for _, d := range v.hops {
				chans[i][j] = append(chans[i][j], int32(s*2*t.n+int(d)))
				s = t.Next(s, d)
			}
		}
	}
	load := make([]int, len(t.nb))
	fitness := func(genes []uint8) float64 {
		clear(load)
		for i, gi := range genes {
			for _, c := range chans[i][gi] {
				load[c]++
			}
		}
		return sigma(load, 4)
	}
	type chromosome struct {
		genes []uint8
		fit   float64
	}
	random := func() chromosome {
		c := chromosome{genes: make([]uint8, len(pairs))}
		for i := range c.genes {
			c.genes[i] = uint8(rng.IntN(len(vars[i])))
		}
		c.fit = fitness(c.genes)
		return c
	}
	pop := make([]chromosome, o.Population)
	for i := range pop {
		pop[i] = random()
	}
	byFitness := func(p []chromosome) {
		sort.SliceStable(p, func(i, j int) bool { return p[i].fit < p[j].fit })
	}
	byFitness(pop)
	best, stale := pop[0].fit, 0
	for gen := 0; gen < o.MaxGenerations && stale < o.Patience && len(pairs) > 1; gen++ {
		next := slices.Clone(pop)
		for k := 0; k < o.Population/2; k++ {
			a, b := pop[rng.IntN(len(pop))], pop[rng.IntN(len(pop))]
			i, j := rng.IntN(len(pairs)), rng.IntN(len(pairs))
			if i > j {
				i, j = j, i
			}
			for _, kid := range [2][]uint8{
				slices.Concat(a.genes[:i], b.genes[i:j], a.genes[j:]),
				slices.Concat(b.genes[:i], a.genes[i:j], b.genes[j:]),
			} {
				for q := range kid {
					if rng.Float64() < o.Mutation {
						kid[q] = uint8(rng.IntN(len(vars[q])))
					}
				}
				next = append(next, chromosome{genes: kid, fit: fitness(kid)})
			}
		}
		byFitness(next)
		pop = next[:o.Population]
		if pop[0].fit < best {
			small := best-pop[0].fit < o.MinGain*best
			best, stale = pop[0].fit, 0
			if small {
				break
			}
		} else {
			stale++
		}
	}
	r := newRoutes(t, nodes)
	for i, p := range pairs {
		v := vars[i][pop[0].genes[i]]
		r.set(p[0], p[1], v.hops, v.fs, v.ls)
	}
	return r
}
