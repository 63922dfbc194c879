package export

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/passivenfir/gputrain/convex"
	"github.com/passivenfir/gputrain/data"
)

// Realization is a discrete-time state-space model x(t+1) = A x(t) + B u(t),
// y(t) = C x(t) + D u(t), matrices row-major.
type Realization struct {
	N          int       // states
	A, B, C, D []float64 // N×N, N×1, 1×N, 1×1
}

// Realize returns the realization of a plain linear FIR (no branches) with
// the state x(t) = [u(t−m+1), …, u(t−1)]: A the upper shift, B = e_{m−1},
// C = [g(m−1) … g(1)], D = g(0), as in the KYP lemma of the paper
// (Theorem 4).
func Realize(g []float64) Realization {
	n := len(g) - 1
	r := Realization{N: n, A: make([]float64, n*n), B: make([]float64, n), C: make([]float64, n), D: []float64{g[0]}}
	for i := 0; i+1 < n; i++ {
		r.A[i*n+i+1] = 1
	}
	if n > 0 {
		r.B[n-1] = 1
	}
	for i := 0; i < n; i++ {
		r.C[i] = g[n-i]
	}
	return r
}

// Impulse returns the first k samples of the realization's impulse
// response: D, CB, CAB, CA²B, …
func (r Realization) Impulse(k int) []float64 {
	h := make([]float64, k)
	h[0] = r.D[0]
	x := append([]float64(nil), r.B...) // A^{i−1} B
	next := make([]float64, r.N)
	for i := 1; i < k; i++ {
		s := 0.0
		for j := range x {
			s += r.C[j] * x[j]
		}
		h[i] = s
		for a := 0; a < r.N; a++ {
			v := 0.0
			for b := 0; b < r.N; b++ {
				v += r.A[a*r.N+b] * x[b]
			}
			next[a] = v
		}
		x, next = next, x
	}
	return h
}

// StateSpace returns NAME_ss.npz and NAME_ss.mat with the realization of a
// plain linear FIR (a model with no branches: the lifted branches' gains
// depend on the signals, so such a model has no linear realization) and its
// passivity check: the impulse response recovered from A, B, C, D must be
// the taps, and its certificate is computed again from it.
func StateSpace(s *Source, name string) ([]File, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	m := s.Model
	if m.Branches > 0 {
		return nil, fmt.Errorf("%w: a state-space realization exists for a plain linear FIR (trained with --branches 0); this model has %d lifted branches, whose gains depend on the signals: export it with --format c or fmu, or read it with python/gputrain_model.py", ErrUnsupported, m.Branches)
	}
	r := Realize(m.Lin)
	h := r.Impulse(len(m.Lin) + 1)
	for k, v := range m.Lin {
		if h[k] != v {
			return nil, fmt.Errorf("export: the realization's impulse response is %g at k = %d, the tap is %g", h[k], k, v)
		}
	}
	if h[len(m.Lin)] != 0 {
		return nil, fmt.Errorf("export: the realization's impulse response does not end after %d taps", len(m.Lin))
	}
	cert, err := convex.Certify(h[:len(m.Lin)])
	if err != nil {
		return nil, err
	}
	if s.Claim == Certified && !cert.Passive {
		return nil, fmt.Errorf("export: the realization fails the certificate (min Re G ≥ %g) that its taps pass", cert.MinRe)
	}
	passive := 0.0
	if s.Passive() {
		passive = 1
	}
	n := r.N
	ts := s.Meta.Ts
	mats := []data.MATMatrix{
		{Name: "A", Rows: n, Cols: n, Data: r.A},
		{Name: "B", Rows: n, Cols: 1, Data: r.B},
		{Name: "C", Rows: 1, Cols: n, Data: r.C},
		{Name: "D", Rows: 1, Cols: 1, Data: r.D},
		{Name: "Ts", Rows: 1, Cols: 1, Data: []float64{ts}},
		{Name: "passive", Rows: 1, Cols: 1, Data: []float64{passive}},
		{Name: "min_re", Rows: 1, Cols: 1, Data: []float64{cert.MinRe}},
		{Name: "omega", Rows: 1, Cols: 1, Data: []float64{cert.Omega}},
	}
	if !s.Passive() {
		mats = append(mats, data.MATMatrix{Name: "NOT_PASSIVE", Rows: 1, Cols: 1, Data: []float64{1}})
	}
	var mat bytes.Buffer
	if err := data.WriteMATMatrices(&mat, mats); err != nil {
		return nil, err
	}

	var npz bytes.Buffer
	zw := zip.NewWriter(&npz)
	for _, v := range mats {
		if err := writeNPY(zw, v.Name, "<f8", []int{v.Rows, v.Cols}, f64bytes(v.Data)); err != nil {
			return nil, err
		}
	}
	summary := strings.Join(s.summary(name), "\n") + "\n"
	if err := writeNPY(zw, "summary", "|u1", []int{len(summary)}, []byte(summary)); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return []File{{name + "_ss.npz", npz.Bytes()}, {name + "_ss.mat", mat.Bytes()}}, nil
}

func f64bytes(v []float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

// writeNPY adds NAME.npy to an .npz archive: NumPy format 1.0, C order,
// any shape (sizes of 0 included, which a 0-state realization needs).
func writeNPY(zw *zip.Writer, name, descr string, shape []int, raw []byte) error {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	sh := strings.Join(dims, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, sh)
	pad := (64 - (10+len(dict)+1)%64) % 64
	hdr := dict + strings.Repeat(" ", pad) + "\n"
	w, err := zw.Create(name + ".npy")
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(hdr)))
	b.WriteString(hdr)
	b.Write(raw)
	_, err = w.Write(b.Bytes())
	return err
}
