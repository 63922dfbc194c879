package baseline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/data"
)

// n4sidClass is a linear state-space model by N4SID; Order 0 chooses the
// order on validation data over orderGrid (quickOrders with a Quick budget).
type n4sidClass struct{ Order int }

var (
	orderGrid   = []int{1, 2, 3, 4, 6, 8, 12, 20}
	quickOrders = []int{2, 4, 8}
)

// horizon is the number of block rows used for order n: about twice the
// order, at least 10.
func horizon(n int) int { return max(10, 2*n) }

func (n4sidClass) Name() string { return "n4sid" }
func (n4sidClass) About() string {
	return "N4SID: linear state-space model, order chosen on validation data"
}

func (c n4sidClass) AddFlags(fs classes.FlagSet) func() classes.Class {
	fs.IntVar(&c.Order, "n4sid-order", 0, "--model n4sid: state dimension (0: chosen on validation data over 1, 2, 3, 4, 6, 8, 12, 20)")
	return func() classes.Class { return c }
}

func (c n4sidClass) Fit(ctx context.Context, train, val *data.Dataset, opt classes.FitOptions) (classes.Model, error) {
	if c.Order < 0 {
		return nil, fmt.Errorf("baseline: n4sid: order %d must be ≥ 0", c.Order)
	}
	if c.Order > 0 {
		s, err := baselines.N4SID(train, c.Order, horizon(c.Order))
		if err != nil {
			return nil, err
		}
		return &n4sidModel{s}, nil
	}
	if val == nil || len(val.Batches) == 0 {
		return nil, errors.New("baseline: n4sid: choosing the order needs validation data (or give the order)")
	}
	grid := orderGrid
	if opt.Budget == classes.Quick {
		grid = quickOrders
	}
	var best *n4sidModel
	bestFit := math.Inf(-1)
	var fails []string
	for _, n := range grid {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := baselines.N4SID(train, n, horizon(n))
		if err != nil {
			fails = append(fails, fmt.Sprintf("order %d: %v", n, err))
			continue
		}
		m := &n4sidModel{s}
		sum, err := classes.Evaluate(m, val, opt.ValSkip, opt.Workers)
		if err != nil {
			fails = append(fails, fmt.Sprintf("order %d: %v", n, err))
			continue
		}
		if opt.Progress != nil {
			opt.Progress(fmt.Sprintf("n4sid: order %d, closed-loop val fit %.2f%%", n, sum.Median))
		}
		if best == nil || sum.Median > bestFit {
			best, bestFit = m, sum.Median
		}
	}
	if best == nil {
		return nil, fmt.Errorf("baseline: n4sid: no order could be identified: %s", strings.Join(fails, "; "))
	}
	return best, nil
}

type n4sidModel struct{ *baselines.StateSpace }

func (*n4sidModel) Class() string { return "n4sid" }

// NumParams counts A, B, C and D.
func (m *n4sidModel) NumParams() int {
	n := m.Order()
	return n*n + 2*n + 1
}

// prGrid is the number of frequencies on which Certify evaluates Re G.
const prGrid = 2048

// Certify reports the model as not constrained passive, with what a
// frequency grid says of its positive realness (no certificate: a grid
// cannot prove it).
func (m *n4sidModel) Certify() (classes.Certificate, error) {
	if r := m.SpectralRadius(); !(r < 1) {
		return classes.Certificate{Reason: fmt.Sprintf("N4SID: linear, not constrained passive; not stable (spectral radius %.4g)", r)}, nil
	}
	minRe := math.Inf(1)
	for k := 0; k <= prGrid; k++ {
		minRe = math.Min(minRe, real(m.Response(math.Pi*float64(k)/prGrid)))
	}
	return classes.Certificate{Reason: fmt.Sprintf("N4SID: linear, not constrained passive (min Re G on %d frequencies %.3g; a grid is no certificate)", prGrid+1, minRe)}, nil
}

// n4sidParams is the params object of an n4sid file.
type n4sidParams struct {
	A [][]float64 `json:"a"`
	B []float64   `json:"b"`
	C []float64   `json:"c"`
	D float64     `json:"d"`
}

func (m *n4sidModel) MarshalParams() (json.RawMessage, error) {
	n := m.Order()
	p := n4sidParams{A: make([][]float64, n), B: make([]float64, n), C: make([]float64, n), D: m.D}
	for i := range n {
		p.A[i] = mat.Row(nil, i, m.A)
		p.B[i], p.C[i] = m.B.AtVec(i), m.C.AtVec(i)
	}
	return json.Marshal(p)
}

func (n4sidClass) DecodeParams(raw json.RawMessage) (classes.Model, error) {
	var p n4sidParams
	if err := decodeStrict(raw, &p); err != nil {
		return nil, err
	}
	n := len(p.A)
	if n < 1 || len(p.B) != n || len(p.C) != n {
		return nil, fmt.Errorf("a is %d×…, b has %d values, c %d: want n ≥ 1 rows and n values each", n, len(p.B), len(p.C))
	}
	a := mat.NewDense(n, n, nil)
	for i, row := range p.A {
		if len(row) != n {
			return nil, fmt.Errorf("row %d of a has %d values, want %d", i, len(row), n)
		}
		if err := checkFinite(fmt.Sprintf("a[%d]", i), row); err != nil {
			return nil, err
		}
		a.SetRow(i, row)
	}
	if err := checkFinite("b", p.B); err != nil {
		return nil, err
	}
	if err := checkFinite("c", append(p.C, p.D)); err != nil {
		return nil, err
	}
	s := &baselines.StateSpace{A: a, B: mat.NewVecDense(n, p.B), C: mat.NewVecDense(n, p.C), D: p.D}
	return &n4sidModel{s}, nil
}
