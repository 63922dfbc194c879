package model

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/data"
)

var structures = []struct {
	name string
	s    Structure
}{
	{"FF", Structure{Branches: 3, Taps: 8, R1: 2, Hidden: []int{4}}},
	{"FB", Structure{Branches: 3, Taps: 8, R1: 1, R2: 3, Hidden: []int{4, 4}, Feedback: true}},
	{"FB+lin", Structure{Branches: 2, Taps: 6, R1: 3, R2: 2, Hidden: []int{5}, Feedback: true, LinearTaps: 7}},
	{"lin", Structure{LinearTaps: 9}},
	{"FB+hold", Structure{Branches: 2, Taps: 6, R1: 4, R2: 2, Hidden: []int{5}, Feedback: true, LinearTaps: 3, HoldStart: true}},
}

func randomModel(t *testing.T, s Structure, seed uint64) *NFIR {
	t.Helper()
	m, err := RandomPassive(s, rand.New(rand.NewPCG(seed, seed)))
	if err != nil {
		t.Fatal(err)
	}
	m.UScaler = data.Scaler{Scale: 2, Mean: 0.1, Std: 0.7}
	m.QScaler = data.Scaler{Scale: 3, Mean: -0.2, Std: 1.3}
	return m
}

func randn(rng *rand.Rand, T int) []float64 {
	u := make([]float64, T)
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	return u
}

// TestCausality: changing u after τ leaves y(0..τ) unchanged, open and closed loop.
func TestCausality(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range structures {
		m := randomModel(t, tc.s, 3)
		const T, tau = 40, 17
		u := randn(rng, T)
		q := randn(rng, T)
		u2 := append([]float64(nil), u...)
		q2 := append([]float64(nil), q...)
		for i := tau + 1; i < T; i++ {
			u2[i] = rng.NormFloat64()
			q2[i] = rng.NormFloat64()
		}
		y1, _ := m.Forward(u, q)
		y2, _ := m.Forward(u2, q2)
		s1, _ := m.Simulate(u)
		s2, _ := m.Simulate(u2)
		for i := 0; i <= tau; i++ {
			if y1[i] != y2[i] || s1[i] != s2[i] {
				t.Fatalf("%s: output at %d changed when only the future (> %d) changed", tc.name, i, tau)
			}
		}
	}
}

// minPassivity returns min over τ of Σ_{t≤τ} u(t)y(t) / ‖u‖².
func minPassivity(u, y []float64) float64 {
	nu := 0.0
	for _, v := range u {
		nu += v * v
	}
	s, m := 0.0, math.Inf(1)
	for i := range u {
		s += u[i] * y[i]
		m = math.Min(m, s)
	}
	return m / nu
}

// adversarial returns an input that drives Σuy down: for fixed gains the
// operator is y = M u with M = Σ_j N_j T_j N_j (+ linear Toeplitz); the
// eigenvector of the smallest eigenvalue of sym(M) is the worst input for
// those gains. A few fixed-point rounds adapt the gains to the input.
func adversarial(m *NFIR, u0 []float64, closed bool) []float64 {
	T := len(u0)
	u := append([]float64(nil), u0...)
	for round := 0; round < 4; round++ {
		var n []float64
		if closed {
			_, n = m.Simulate(u)
		} else {
			n = m.Gains(u, u)
		}
		M := mat.NewSymDense(T, nil)
		e := make([]float64, T)
		cols := make([][]float64, T)
		for c := 0; c < T; c++ {
			clear(e)
			e[c] = 1
			cols[c] = m.Output(e, n)
		}
		for r := 0; r < T; r++ {
			for c := r; c < T; c++ {
				M.SetSym(r, c, (cols[c][r]+cols[r][c])/2)
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(M, true) {
			break
		}
		var V mat.Dense
		eig.VectorsTo(&V)
		scale := math.Sqrt(float64(T))
		for i := range u {
			u[i] = V.At(i, 0) * scale * 3
		}
	}
	return u
}

// TestTimeDomainPassivity: Σ_{t≤τ} u(t)y(t) ≥ −1e-9‖u‖² for every τ, for
// random and adversarial inputs, FF and FB, open and closed loop — and a
// control: the same test catches a model whose FIR is not passive.
func TestTimeDomainPassivity(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range structures {
		m := randomModel(t, tc.s, 7)
		for trial := 0; trial < 5; trial++ {
			T := 30 + rng.IntN(40)
			u := randn(rng, T)
			for i := range u {
				u[i] *= 5 * rng.Float64()
			}
			q := randn(rng, T)
			yo, _ := m.Forward(u, q)
			yc, _ := m.Simulate(u)
			adv := adversarial(m, u, true)
			ya, _ := m.Simulate(adv)
			advO := adversarial(m, u, false)
			yao, _ := m.Forward(advO, advO)
			for name, v := range map[string]float64{
				"open": minPassivity(u, yo), "closed": minPassivity(u, yc),
				"adversarial closed": minPassivity(adv, ya), "adversarial open": minPassivity(advO, yao),
			} {
				if v < -1e-9 {
					t.Errorf("%s %s: min_τ Σ u y / ‖u‖² = %g < −1e-9", tc.name, name, v)
				}
			}
		}
	}
	// Control: a non-passive FIR (Re G < 0 somewhere) must be caught.
	m := randomModel(t, Structure{LinearTaps: 5}, 1)
	copy(m.Lin, []float64{0.1, 0, 1, 0, 0}) // Re G(π/2) = 0.1 − 1 < 0
	adv := adversarial(m, randn(rng, 40), true)
	ya, _ := m.Simulate(adv)
	if v := minPassivity(adv, ya); v > -1e-3 {
		t.Errorf("non-passive control: min ratio %g, the adversarial input should expose it", v)
	}
}

func TestSimulateMatchesForwardOnItsOwnOutput(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, tc := range structures {
		m := randomModel(t, tc.s, 11)
		u := randn(rng, 50)
		ys, _ := m.Simulate(u)
		yf, err := m.Forward(u, data.Q(ys))
		if err != nil {
			t.Fatal(err)
		}
		for i := range ys {
			if math.Abs(ys[i]-yf[i]) > 1e-12*(1+math.Abs(ys[i])) {
				t.Fatalf("%s: closed loop differs from open loop fed with its own output at %d: %g vs %g", tc.name, i, ys[i], yf[i])
			}
		}
	}
}

func TestFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 3))
	for _, tc := range structures {
		m := randomModel(t, tc.s, 13)
		path := filepath.Join(dir, tc.name+".json")
		if err := Save(path, m, Meta{Ts: 0.02, Mode: "exact", Training: []byte(`{"lr":0.001}`)}); err != nil {
			t.Fatal(err)
		}
		got, meta, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if meta.Mode != "exact" || meta.Ts != 0.02 {
			t.Errorf("%s: meta %+v", tc.name, meta)
		}
		u := randn(rng, 30)
		y1, _ := m.Simulate(u)
		y2, _ := got.Simulate(u)
		for i := range y1 {
			if y1[i] != y2[i] {
				t.Fatalf("%s: loaded model differs at %d", tc.name, i)
			}
		}
	}
}

func TestFileErrors(t *testing.T) {
	m := randomModel(t, structures[1].s, 17)
	var buf bytes.Buffer
	if err := Encode(&buf, m, Meta{Mode: "exact"}); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	nonPassive := m.Clone()
	nonPassive.G[0] = -10
	lin := randomModel(t, Structure{LinearTaps: 4}, 5)
	buf.Reset()
	if err := Encode(&buf, lin, Meta{Mode: "exact"}); err != nil {
		t.Fatal(err)
	}
	linear := buf.String()
	tests := []struct {
		name string
		text string
		want error
	}{
		{"not json", "hello", ErrFormat},
		{"not UTF-8", strings.Replace(good, `"format"`, "\"training\": {\"note\": \"\xff\"}, \"format\"", 1), ErrFormat},
		{"data after the object", good + "{}", ErrFormat},
		// encoding/json would match these case-insensitively and keep the
		// last of two equal keys; the format's keys are exact and unique.
		{"key case", strings.Replace(good, `"version"`, `"Version"`, 1), ErrFormat},
		{"nested key case", strings.Replace(good, `"taps"`, `"TAPS"`, 1), ErrFormat},
		{"duplicate key", strings.Replace(good, `"format"`, `"version": 1, "format"`, 1), ErrFormat},
		{"null tap", strings.Replace(good, `"g": [`+"\n"+`  [`+"\n", `"g": [`+"\n"+`  [`+"\n"+`   null,`+"\n", 1), ErrFormat},
		{"hold_start false in version 1", strings.Replace(good, `"linear_taps": 0`, `"linear_taps": 0, "hold_start": false`, 1), ErrFormat},
		{"lifting network without branches", strings.Replace(linear, `"weights": []`, `"weights": [[1, 2]]`, 1), ErrShape},
		// U+017F (ſ) folds to s in encoding/json's key matching.
		{"long s", strings.Replace(good, `"taps"`, "\"tap\u017f\"", 1), ErrFormat},
		{"long s duplicate", strings.Replace(good, `"taps": 8`, "\"taps\": 8, \"tap\u017f\": 8", 1), ErrFormat},
		{"long s nested", strings.Replace(good, `"passive"`, "\"pa\u017f\u017five\"", 1), ErrFormat},
		{"null required", strings.Replace(good, `"mode": "exact"`, `"mode": null`, 1), ErrFormat},
		{"mean missing", strings.Replace(good, `"mean": 0.1,`, ``, 1), ErrFormat},
		{"scaler null", strings.Replace(good, `"std": 0.7`, `"std": null`, 1), ErrFormat},
		{"training a number", strings.Replace(good, `"format"`, `"training": 3, "format"`, 1), ErrFormat},
		{"training an array", strings.Replace(good, `"format"`, `"training": [], "format"`, 1), ErrFormat},
		{"training null", strings.Replace(good, `"format"`, `"training": null, "format"`, 1), nil},
		{"optional null", strings.Replace(good, `"format"`, `"ts": null, "format"`, 1), nil},
		{"null file", "null", ErrFormat},
		{"training is free-form", strings.Replace(good, `"format"`, `"training": {"LR": 1, "LR": 2}, "format"`, 1), nil},
		{"format", strings.Replace(good, Format, "other", 1), ErrFormat},
		{"version", strings.Replace(good, `"version": 1`, `"version": 99`, 1), ErrFormat},
		{"unknown field", strings.Replace(good, `"format"`, `"extra": 1, "format"`, 1), ErrFormat},
		{"mode", strings.Replace(good, `"mode": "exact"`, `"mode": "magic"`, 1), ErrFormat},
		{"taps", strings.Replace(good, `"taps": 8`, `"taps": 7`, 1), ErrShape},
		{"branches", strings.Replace(good, `"branches": 3`, `"branches": 4`, 1), ErrShape},
		// hold_start came with version 2: a version-1 file cannot carry it.
		{"hold_start in version 1", strings.Replace(good, `"linear_taps": 0`, `"linear_taps": 0, "hold_start": true`, 1), ErrFormat},
	}
	for _, tc := range tests {
		if tc.text == good || tc.text == linear {
			t.Errorf("%s: the edit did not apply", tc.name)
		}
		if _, _, err := Decode(strings.NewReader(tc.text)); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	// Syntax and type errors say where they are; a byte-order mark is not one.
	for _, tc := range []struct{ name, text, want string }{
		{"long s", strings.Replace(good, `"taps"`, "\"tap\u017f\"", 1), `line 6 column 10: unknown key "structure.tapſ"`},
		{"mean missing", strings.Replace(good, `"mean": 0.1,`, ``, 1), `required key "scalers.u.mean" is missing`},
		{"scaler null", strings.Replace(good, `"std": 0.7`, `"std": null`, 1), `required key "scalers.u.std" is null`},
		{"training a number", strings.Replace(good, `"format"`, `"training": 3, "format"`, 1), "training: a JSON object or null, not 3"},
		{"truncated", good[:len(good)/2], "line "},
		{"bad token", strings.Replace(good, `"taps": 8`, `"taps": NaN`, 1), "line 6 column"},
		{"type", strings.Replace(good, `"taps": 8`, `"taps": "eight"`, 1), "line 6 column"},
		{"key case", strings.Replace(good, `"taps"`, `"TAPS"`, 1), "line 6 column"},
		{"duplicate key", strings.Replace(good, `"taps": 8`, `"taps": 8, "taps": 8`, 1), "line 6 column"},
	} {
		if _, _, err := Decode(strings.NewReader(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to say %q", tc.name, err, tc.want)
		}
	}
	if _, _, err := Decode(strings.NewReader("\ufeff" + good)); err != nil {
		t.Errorf("byte-order mark: %v", err)
	}
	// A non-passive model is never written as passive, nor read as one.
	if err := Encode(&buf, nonPassive, Meta{Mode: "exact"}); !errors.Is(err, ErrNotPassive) {
		t.Errorf("encode non-passive as exact: %v", err)
	}
	buf.Reset()
	if err := Encode(&buf, nonPassive, Meta{Mode: "none"}); err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(buf.String(), `"mode": "none"`, `"mode": "exact"`, 1)
	if _, _, err := Decode(strings.NewReader(forged)); !errors.Is(err, ErrNotPassive) || !strings.Contains(err.Error(), "branch 0: the certified lower bound of min Re G is -") {
		t.Errorf("decode forged passive claim: %v", err)
	}
	// Save never leaves a partial file behind.
	dir := t.TempDir()
	path := filepath.Join(dir, "m.json")
	if err := Save(path, nonPassive, Meta{Mode: "exact"}); err == nil {
		t.Fatal("saved a non-passive model as passive")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("failed save left files: %v", ents)
	}
}

func TestFit(t *testing.T) {
	y := []float64{1, 2, 3, 4}
	tests := []struct {
		yhat []float64
		skip int
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 0, 100},
		{[]float64{0, 0, 0, 0}, 0, 0},
		{[]float64{9, 9, 3, 4}, 2, 100},
		{[]float64{2, 4, 6, 8}, 0, 0},
	}
	for _, tc := range tests {
		got, err := Fit(y, tc.yhat, tc.skip)
		if err != nil || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Fit(%v, skip %d) = %g, %v; want %g", tc.yhat, tc.skip, got, err, tc.want)
		}
	}
	if _, err := Fit(y, y[:2], 0); !errors.Is(err, ErrShape) {
		t.Error("length mismatch accepted")
	}
	// Fit does not depend on the units: outputs near the ends of the float64
	// range score as the same signals in ordinary units.
	yhat := []float64{1.5, 2, 2.5, 4}
	want, _ := Fit(y, yhat, 0)
	for _, c := range []float64{1e-300, 1e300, 1e-320} {
		ys, yh := make([]float64, len(y)), make([]float64, len(y))
		for i := range y {
			ys[i], yh[i] = y[i]*c, yhat[i]*c
		}
		if got, err := Fit(ys, yh, 0); err != nil || math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) && c != 1e-320 {
			t.Errorf("output scaled by %g: Fit %g, %v; want %g", c, got, err, want)
		}
	}
	s := Summarize([]float64{3, 1, 2, 10})
	if s.Median != 2.5 || s.Min != 1 || s.Max != 10 || s.Mean != 4 {
		t.Errorf("Summarize: %+v", s)
	}
	// NaN (no Fit) is kept per batch and left out of the statistics.
	nan := math.NaN()
	s = Summarize([]float64{3, nan, 1, 2, 10, nan})
	if s.Median != 2.5 || s.Min != 1 || s.Max != 10 || s.Mean != 4 || len(s.PerBatch) != 6 || !math.IsNaN(s.PerBatch[1]) {
		t.Errorf("Summarize with NaN: %+v", s)
	}
	if s = Summarize([]float64{nan}); !math.IsNaN(s.Median) || !math.IsNaN(s.Mean) {
		t.Errorf("Summarize of NaN alone: %+v", s)
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		if got, err := Fit(y, []float64{1, bad, 3, 4}, 0); err != nil || !math.IsInf(got, -1) {
			t.Errorf("prediction with %g: Fit %g, %v; want -Inf", bad, got, err)
		}
	}
	if _, err := Fit([]float64{0, 0}, []float64{1, 1}, 0); !errors.Is(err, ErrZeroOutput) || errors.Is(err, ErrShape) {
		t.Errorf("zero output: %v, want ErrZeroOutput (and not ErrShape: the dimensions agree)", err)
	}
}

func TestFlatten(t *testing.T) {
	m := randomModel(t, structures[1].s, 19)
	theta := m.Lift.Flatten()
	c := m.Clone()
	for i := range theta {
		theta[i] += 1
	}
	if err := c.Lift.SetFlat(theta); err != nil {
		t.Fatal(err)
	}
	if c.Lift.W[0][0] != m.Lift.W[0][0]+1 || c.Lift.B[len(c.Lift.B)-1][0] != m.Lift.B[len(m.Lift.B)-1][0]+1 {
		t.Error("SetFlat does not follow Flatten's order")
	}
	if err := c.Lift.SetFlat(theta[1:]); !errors.Is(err, ErrShape) {
		t.Error("short θ accepted")
	}
}

// TestInit checks both random initializations against their distributions:
// every draw within its bound, the sample variance of each layer's weights
// near bound²/3 (uniform), and zero (Glorot) or non-zero (fan-in) biases.
func TestInit(t *testing.T) {
	sizes := []int{302, 8, 8, 3} // the paper's robot lifting network: 2·151 features, 8×8, 3 branches
	for _, c := range []struct {
		name   string
		init   func(*MLP, *rand.Rand)
		bound  func(in, out int) float64
		biases bool
	}{
		{"glorot", (*MLP).InitXavier, func(in, out int) float64 { return math.Sqrt(6 / float64(in+out)) }, false},
		{"fan-in", (*MLP).InitFanIn, func(in, out int) float64 { return 1 / math.Sqrt(float64(in)) }, true},
	} {
		m := NewMLP(sizes...)
		c.init(&m, rand.New(rand.NewPCG(7, 8)))
		for l := range m.W {
			a := c.bound(sizes[l], sizes[l+1])
			v := 0.0
			for _, w := range m.W[l] {
				if math.Abs(w) > a {
					t.Fatalf("%s layer %d: weight %g outside ±%g", c.name, l, w, a)
				}
				v += w * w
			}
			v /= float64(len(m.W[l]))
			// The variance of a mean of n draws of w² (variance 4a⁴/45) has sd a²·0.3/√n.
			if tol := 4 * a * a * 0.3 / math.Sqrt(float64(len(m.W[l]))); math.Abs(v-a*a/3) > tol {
				t.Errorf("%s layer %d: weight variance %g, want %g ± %g", c.name, l, v, a*a/3, tol)
			}
			zero := 0
			for _, b := range m.B[l] {
				if math.Abs(b) > 1/math.Sqrt(float64(sizes[l])) {
					t.Fatalf("%s layer %d: bias %g outside ±1/√fan_in", c.name, l, b)
				}
				if b == 0 {
					zero++
				}
			}
			if c.biases && zero > 0 || !c.biases && zero != len(m.B[l]) {
				t.Errorf("%s layer %d: %d of %d biases zero", c.name, l, zero, len(m.B[l]))
			}
		}
	}
}

// TestHoldStart: with HoldStart the u-window before t = 0 repeats u(0), which
// is the model without it run on u with R1−1 copies of u(0) put in front (an
// independent construction of the same features); with u(0) = 0 the two
// paddings agree. The file says version 2 only for such a model.
func TestHoldStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	st := Structure{Branches: 2, Taps: 5, R1: 6, R2: 3, Hidden: []int{4}, Feedback: true, HoldStart: true}
	m := randomModel(t, st, 21)
	plain := m.Clone()
	plain.HoldStart = false
	const T = 20
	u, q := randn(rng, T), randn(rng, T)
	pad := st.R1 - 1
	up := append(make([]float64, pad), u...)
	qp := append(make([]float64, pad), q...)
	for i := range pad {
		up[i] = u[0]
	}
	F := m.NumFeatures()
	got, want := make([]float64, F), make([]float64, F)
	for tt := range T {
		m.FeatureAt(u, q, tt, got)
		plain.FeatureAt(up, qp, tt+pad, want)
		for i := range st.R1 {
			if got[i] != want[i] {
				t.Fatalf("t=%d: u-feature %d is %g, want %g", tt, i, got[i], want[i])
			}
		}
		plain.FeatureAt(u, q, tt, want)
		for i := st.R1; i < F; i++ {
			if got[i] != want[i] {
				t.Fatalf("t=%d: q-feature %d is %g, want %g (q is not held)", tt, i, got[i], want[i])
			}
		}
	}
	// The hold changes the model's output: the features above are used.
	yh, _ := m.Simulate(u)
	yz, _ := plain.Simulate(u)
	if slices.Equal(yh, yz) {
		t.Error("HoldStart did not change the simulation of a record with u(0) ≠ 0")
	}
	u[0] = 0
	yh, _ = m.Simulate(u)
	yz, _ = plain.Simulate(u)
	if !slices.Equal(yh, yz) {
		t.Error("with u(0) = 0 holding it must change nothing")
	}
	for _, tc := range []struct {
		m       *NFIR
		version string
	}{{m, `"version": 2`}, {plain, `"version": 1`}} {
		var buf bytes.Buffer
		if err := Encode(&buf, tc.m, Meta{Mode: "exact"}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), tc.version) || strings.Contains(buf.String(), "hold_start") != tc.m.HoldStart {
			t.Errorf("hold %v: file has not %s with hold_start exactly when held:\n%.300s", tc.m.HoldStart, tc.version, buf.String())
		}
		back, _, err := Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if back.HoldStart != tc.m.HoldStart {
			t.Errorf("hold %v read back as %v", tc.m.HoldStart, back.HoldStart)
		}
	}
	if _, err := Average(m, plain); !errors.Is(err, ErrShape) {
		t.Errorf("Average of a held and a plain model: err = %v, want ErrShape", err)
	}
}
