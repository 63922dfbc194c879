package export

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/convex"
	"github.com/passivenfir/gputrain/convex/kyp"
	"github.com/passivenfir/gputrain/data"
)

// maxKYPTaps bounds the FIRs whose KYP matrix X is computed: the solver
// costs O(m³) per Newton step, about a second at 250 taps and eight at 500
// on the CI machine type.
const maxKYPTaps = 250

// KYP is the KYP certificate of a realization (Theorem 4): X ⪰ 0 with
// [[X − AᵀXA, Cᵀ − AᵀXB], [C − BᵀXA, D + Dᵀ − BᵀXB]] ⪰ 0, which proves
// Re G(e^{iω}) ≥ 0 for the realization itself, in any tool that can take
// eigenvalues.
type KYP struct {
	X                 []float64 // (m−1)×(m−1), row-major; nil for m = 1
	MinEigX, MinEigLM float64   // smallest eigenvalues of X and of the LMI matrix
	Tol               float64   // the eigenvalues are ≥ −Tol
}

// kypCertificate finds X for the taps g, from the KYP solver of package kyp
// on the problem whose solution is g itself (minimize ½‖θ − g‖² over the
// passive θ), and checks the LMI with g's own realization. It reports why
// when it does not give one: more than maxKYPTaps taps, or an LMI that
// does not hold within Tol (a margin too thin for the solver's accuracy;
// the certificate of the taps stays the proof then).
func kypCertificate(g []float64) (*KYP, string) {
	m := len(g)
	scale := 1.0
	for _, v := range g {
		scale = math.Max(scale, math.Abs(v))
	}
	tol := 1e-9 * scale
	if m == 1 {
		_, e, ok := kyp.Check(g, nil, tol)
		if !ok {
			return nil, "the LMI 2·D ≥ 0 fails"
		}
		return &KYP{MinEigX: math.Inf(1), MinEigLM: e, Tol: tol}, ""
	}
	if m > maxKYPTaps {
		return nil, fmt.Sprintf("not computed for more than %d taps", maxKYPTaps)
	}
	P := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		P.SetSym(i, i, 1)
	}
	sol, err := kyp.Solve(&convex.Problem{P: P, B: append([]float64(nil), g...),
		Blocks: []convex.Block{{Offset: 0, Len: m, Kind: convex.Exact}}}, &kyp.Options{Tol: 1e-14})
	if err != nil || len(sol.Certificates) != 1 || sol.Certificates[0].X == nil {
		return nil, fmt.Sprintf("the KYP solver found no X (%v)", err)
	}
	X := sol.Certificates[0].X
	ex, el, ok := kyp.Check(g, X, tol)
	if !ok {
		return nil, fmt.Sprintf("the X found gives eigenvalues %.3g (X) and %.3g (LMI), below −%.3g: the margin is too thin for the solver", ex, el, tol)
	}
	n := m - 1
	k := &KYP{X: make([]float64, n*n), MinEigX: ex, MinEigLM: el, Tol: tol}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			k.X[i*n+j] = X.At(i, j)
		}
	}
	return k, ""
}

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
	if s.Members != nil {
		return nil, fmt.Errorf("%w: a mean of RENs and loops is not linear, so it has no state-space realization: export it with --format c or fmu", ErrUnsupported)
	}
	if s.Loop != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupported, errLoopSS)
	}
	if s.REN != nil {
		return nil, fmt.Errorf("%w: a passive REN is not linear (its equilibrium layer is tanh), so it has no state-space realization: export it with --format c or fmu", ErrUnsupported)
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
	var kc *KYP
	kypNote := "no KYP certificate: the model is not certified passive"
	if cert.Passive {
		kc, kypNote = kypCertificate(h[:len(m.Lin)])
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
	if kc != nil {
		mats = append(mats,
			data.MATMatrix{Name: "X", Rows: n, Cols: n, Data: kc.X},
			data.MATMatrix{Name: "kyp_tol", Rows: 1, Cols: 1, Data: []float64{kc.Tol}},
			data.MATMatrix{Name: "kyp_min_eig_lmi", Rows: 1, Cols: 1, Data: []float64{kc.MinEigLM}})
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
	lines := s.summary(name)
	if kc != nil {
		lines = append(lines, fmt.Sprintf("KYP (Theorem 4): X in this file; smallest eigenvalue of the LMI %.3g (of X %.3g), tolerance %.3g", kc.MinEigLM, kc.MinEigX, kc.Tol))
	} else {
		lines = append(lines, "KYP (Theorem 4): "+kypNote)
	}
	summary := strings.Join(lines, "\n") + "\n"
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
