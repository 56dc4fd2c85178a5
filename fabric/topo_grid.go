package fabric

import (
	"fmt"
	"strconv"
	"strings"
)

// Common parameters shared by several generators.
var (
	paramHCAs = Param{Name: "hcas", Type: IntParam,
		Help: "total number of HCAs, spread so each switch gets ⌊T/S⌋ or ⌈T/S⌉ (fat trees: leaves only)"}
	paramRedundancy = Param{Name: "redundancy", Type: IntParam, Default: "1",
		Help: "link redundancy r: parallel cables between adjacent switches"}
	paramRadix = Param{Name: "radix", Type: IntParam, Default: "36",
		Help: "ports per switch"}
)

func meshGenerator() Generator {
	return Generator{Kind: "mesh", Help: "n-dimensional mesh (§3.2.1); ports in dimension order: dim 0 −, dim 0 +, dim 1 −, …, then HCAs",
		Example: "mesh:dims=3x3x3,hcas=256,redundancy=4",
		Params: []Param{{Name: "dims", Type: ListParam, Help: "switches per dimension, e.g. 5x5"},
			withDefault(paramHCAs, "", "default: one per switch"), paramRedundancy, paramRadix},
		build: func(a *args) (*Network, error) { return buildGrid(a, false) }}
}

func torusGenerator() Generator {
	return Generator{Kind: "torus", Help: "n-dimensional torus (§3.2.1); a dimension of size 2 has one (×r) cable, not two; ports as for mesh",
		Example: "torus:dims=5x5,hcas=275,redundancy=6",
		Params: []Param{{Name: "dims", Type: ListParam, Help: "switches per dimension, e.g. 5x5 or 4x4x4x4"},
			withDefault(paramHCAs, "", "default: one per switch"), paramRedundancy, paramRadix},
		build: func(a *args) (*Network, error) { return buildGrid(a, true) }}
}

func withDefault(p Param, def, help string) Param {
	p.Default = def
	if help != "" {
		p.Help += "; " + help
	}
	return p
}

func buildGrid(a *args, torus bool) (*Network, error) {
	dims := a.list("dims", 1, 1<<16)
	r := a.int("redundancy", 1, 64)
	radix := a.int("radix", 1, 255)
	if a.err != nil {
		return nil, nil
	}
	ns := 1
	for _, d := range dims {
		ns = mulCap(ns, d, MaxLIDs)
	}
	hcas := a.intOr("hcas", ns, 0, MaxLIDs)
	if a.err != nil {
		return nil, nil
	}
	if err := checkLIDs(ns, hcas); err != nil {
		return nil, fmt.Errorf("dims %v: %w", dims, err)
	}
	nd := len(dims)
	swPorts := 2 * nd * r
	counts := spread(hcas, ns)
	for _, c := range counts {
		if swPorts+c > radix {
			return nil, fmt.Errorf("needs %d ports per switch (%d to switches, %d HCAs), radix is %d", swPorts+c, swPorts, c, radix)
		}
	}
	b := NewBuilder("")
	for i := 0; i < ns; i++ {
		x := i
		names := make([]string, nd)
		c := make([]int, nd)
		for k := 0; k < nd; k++ {
			c[k] = x % dims[k]
			x /= dims[k]
			names[k] = strconv.Itoa(c[k])
		}
		s := b.AddSwitch("s-"+strings.Join(names, "-"), radix)
		b.Node(s).Coord = c
	}
	// Port of dimension k, direction dir (0 = −, 1 = +), copy j.
	port := func(k, dir, j int) int { return 1 + (2*k+dir)*r + j }
	stride := 1
	for k := 0; k < nd; k++ {
		d := dims[k]
		for i := 0; i < ns; i++ {
			ck := (i / stride) % d
			var next int
			switch {
			case ck+1 < d:
				next = i + stride
			case torus && d > 2:
				next = i - ck*stride
			default:
				continue
			}
			if torus && d == 2 && ck != 0 {
				continue
			}
			for j := 0; j < r; j++ {
				if err := b.Connect(i, port(k, 1, j), next, port(k, 0, j)); err != nil {
					return nil, err
				}
			}
		}
		stride *= d
	}
	if err := attachHCAs(b, seq(ns), counts, swPorts+1); err != nil {
		return nil, err
	}
	net, err := b.Finish()
	if err != nil {
		return nil, err
	}
	net.Dims = append([]int(nil), dims...)
	net.Wrap = make([]bool, nd)
	for k, d := range dims {
		net.Wrap[k] = torus && d > 2
	}
	return net, nil
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// attachHCAs cables counts[i] new HCAs to switches[i], on ports starting at
// firstPort (0 = lowest free ports). HCAs are named h-<switch>-<k>.
func attachHCAs(b *Builder, switches, counts []int, firstPort int) error {
	for i, s := range switches {
		p := firstPort
		for k := 0; k < counts[i]; k++ {
			h := b.AddHCA(fmt.Sprintf("h-%s-%d", b.Node(s).Name, k))
			var err error
			if firstPort > 0 {
				err = b.Connect(s, p, h, 1)
				p++
			} else {
				err = b.Link(s, h)
			}
			if err != nil {
				return fmt.Errorf("attaching HCAs: %w", err)
			}
		}
	}
	return nil
}
