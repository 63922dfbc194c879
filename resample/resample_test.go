package resample

import (
	"errors"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/passivenfir/gputrain/data"
)

// response is the filter's frequency response at f cycles per sample,
// summed directly (the reference for the design).
func response(h []float64, f float64) complex128 {
	var s complex128
	for k, v := range h {
		s += complex(v, 0) * cmplx.Exp(complex(0, -2*math.Pi*f*float64(k)))
	}
	return s
}

func TestFilterResponse(t *testing.T) {
	for _, factor := range []int{2, 3, 5, 10, 37} {
		h, err := Filter(factor)
		if err != nil {
			t.Fatal(err)
		}
		if len(h) != FilterLen(factor) {
			t.Fatalf("factor %d: %d taps, want %d", factor, len(h), FilterLen(factor))
		}
		for k := range h {
			if h[k] != h[len(h)-1-k] {
				t.Fatalf("factor %d: tap %d = %v, its mirror %v: not linear phase", factor, k, h[k], h[len(h)-1-k])
			}
		}
		// Pass band: within 1 % of 1; stop band (beyond the new Nyquist
		// frequency, what would alias): 50 dB down.
		nyq := 0.5 / float64(factor)
		for i := 0; i <= 200; i++ {
			f := 0.5 * float64(i) / 200
			g := cmplx.Abs(response(h, f))
			switch {
			case f <= PassEdge(factor) && math.Abs(g-1) > 0.01:
				t.Errorf("factor %d: |H(%.4f)| = %.4f in the pass band (edge %.4f)", factor, f, g, PassEdge(factor))
			case f >= nyq && g > math.Pow(10, -50.0/20):
				t.Errorf("factor %d: |H(%.4f)| = %.2g beyond the new Nyquist frequency %.4f", factor, f, g, nyq)
			}
		}
	}
	if h, err := Filter(1); err != nil || len(h) != 1 || h[0] != 1 {
		t.Errorf("Filter(1) = %v, %v; want the identity", h, err)
	}
}

func TestFilterFactor(t *testing.T) {
	for _, f := range []int{0, -1, MaxFactor + 1} {
		if _, err := Filter(f); !errors.Is(err, ErrFactor) {
			t.Errorf("Filter(%d): %v, want ErrFactor", f, err)
		}
	}
}

// The same filter on u and y commutes with any LTI plant: the filtered
// output is the plant's response to the filtered input, away from the
// records' ends, which is why decimated data keep the plant's relation in
// the pass band.
func TestFilterCommutesWithPlant(t *testing.T) {
	g, err := data.PassiveFIR(3, 40, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 3000
	u := make([]float64, n)
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	y := convolve(g, u)
	h, _ := Filter(6)
	uf, yf := decimate(u, h, 1), decimate(y, h, 1)
	want := convolve(g, uf)
	half := len(h) / 2
	for i := half + len(g); i < n-half; i++ {
		if d := math.Abs(yf[i] - want[i]); d > 1e-9 {
			t.Fatalf("sample %d: filtered y %v, plant on filtered u %v", i, yf[i], want[i])
		}
	}
}

func convolve(g, u []float64) []float64 {
	y := make([]float64, len(u))
	for i := range u {
		for k := 0; k < len(g) && k <= i; k++ {
			y[i] += g[k] * u[i-k]
		}
	}
	return y
}

func sines(n int, freqs, phases []float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		for j, f := range freqs {
			x[i] += math.Sin(2*math.Pi*f*float64(i) + phases[j])
		}
	}
	return x
}

func TestDecimate(t *testing.T) {
	const factor, n = 8, 4001
	keep := 0.3 * PassEdge(factor) // in the pass band
	drop := 0.7 / float64(factor)  // beyond the new Nyquist frequency
	u := sines(n, []float64{keep, drop}, []float64{0.3, 1.1})
	y := sines(n, []float64{keep}, []float64{0.7})
	yc := sines(n, []float64{keep}, []float64{0.7})
	d := &data.Dataset{Name: "t", Ts: 0.001, UCol: "force", YCol: "v", Batches: []data.Batch{{U: u, Y: y, YClean: yc, Label: "run1", Line: 2}}}
	out, err := Decimate(d, factor)
	if err != nil {
		t.Fatal(err)
	}
	if out.Ts != 0.008 || out.UCol != "force" || out.YCol != "v" || out.Batches[0].Label != "run1" || out.Batches[0].Line != 2 {
		t.Errorf("metadata: Ts %v, columns %q %q, label %q line %d", out.Ts, out.UCol, out.YCol, out.Batches[0].Label, out.Batches[0].Line)
	}
	b := out.Batches[0]
	if want := (n + factor - 1) / factor; len(b.U) != want || len(b.Y) != want || len(b.YClean) != want {
		t.Fatalf("lengths %d %d %d, want %d", len(b.U), len(b.Y), len(b.YClean), want)
	}
	// Away from the ends the in-band sine comes through unchanged (no
	// delay: the filter is centred) and the out-of-band one is gone.
	half := FilterLen(factor) / 2
	wantU := sines(n, []float64{keep}, []float64{0.3})
	for i := range b.U {
		t0 := i * factor
		if t0 < half || t0 >= n-half {
			continue
		}
		if d := math.Abs(b.U[i] - wantU[t0]); d > 0.01 {
			t.Fatalf("u at slow sample %d (fast %d): %v, want %v (the in-band sine alone)", i, t0, b.U[i], wantU[t0])
		}
		if d := math.Abs(b.Y[i] - y[t0]); d > 0.01 {
			t.Fatalf("y at slow sample %d: %v, want %v", i, b.Y[i], y[t0])
		}
	}
	if d.Batches[0].U[1] != u[1] || len(d.Batches[0].U) != n {
		t.Error("the input dataset was modified")
	}
}

// A record from rest stays at rest at its first sample: the odd
// reflection about a zero first sample makes the centred filter's first
// output exactly zero.
func TestDecimateFromRest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, factor := range []int{2, 5, 13} {
		n := 50 * factor
		u, y := make([]float64, n), make([]float64, n)
		for i := 1; i < n; i++ {
			u[i] = rng.NormFloat64()
			y[i] = 0.9*y[i-1] + 0.1*u[i-1]
		}
		out, err := Decimate(&data.Dataset{Batches: []data.Batch{{U: u, Y: y}}}, factor)
		if err != nil {
			t.Fatal(err)
		}
		if b := out.Batches[0]; math.Abs(b.U[0]) > 1e-12 || math.Abs(b.Y[0]) > 1e-12 {
			t.Errorf("factor %d: first samples %v, %v; want 0", factor, b.U[0], b.Y[0])
		}
		if out.Ts != 0 {
			t.Errorf("factor %d: an unknown Ts became %v", factor, out.Ts)
		}
	}
}

func TestDecimateErrors(t *testing.T) {
	short := &data.Dataset{Batches: []data.Batch{{U: make([]float64, 40), Y: make([]float64, 40)}, {U: make([]float64, 10), Y: make([]float64, 10), Label: "b"}}}
	tests := []struct {
		name   string
		d      *data.Dataset
		factor int
		want   []error
	}{
		{"factor 0", short, 0, []error{ErrFactor}},
		{"factor too large", short, MaxFactor + 1, []error{ErrFactor}},
		{"empty", &data.Dataset{}, 2, []error{data.ErrEmpty}},
		{"nil", nil, 2, []error{data.ErrEmpty}},
		{"short record", short, 2, []error{ErrShort, data.ErrTooShort}},
		{"mismatch", &data.Dataset{Batches: []data.Batch{{U: make([]float64, 99), Y: make([]float64, 98)}}}, 2, []error{data.ErrLengthMismatch}},
	}
	for _, tt := range tests {
		_, err := Decimate(tt.d, tt.factor)
		for _, w := range tt.want {
			if !errors.Is(err, w) {
				t.Errorf("%s: %v, want %v", tt.name, err, w)
			}
		}
	}
	// Factor 1 keeps the data as they are.
	d := &data.Dataset{Ts: 0.5, Batches: []data.Batch{{U: []float64{1, 2, 3}, Y: []float64{4, 5, 6}}}}
	out, err := Decimate(d, 1)
	if err != nil || out.Ts != 0.5 || out.Batches[0].U[2] != 3 || out.Batches[0].Y[0] != 4 {
		t.Errorf("factor 1: %+v, %v", out, err)
	}
}

func TestSuggest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	tests := []struct {
		name string
		fmax float64 // highest frequency in u and y, cycles per sample; 0: white noise
	}{
		{"oversampled 50x", 0.002},
		{"oversampled 8x", 0.012},
		{"oversampled 1.5x", 0.07},
		{"near Nyquist", 0.3},
		{"white noise", 0},
	}
	for _, tt := range tests {
		var d data.Dataset
		for r := 0; r < 3; r++ {
			n := 4096
			var u, y []float64
			if tt.fmax == 0 {
				u, y = make([]float64, n), make([]float64, n)
				for i := range u {
					u[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
				}
			} else {
				fs := []float64{tt.fmax / 4, tt.fmax / 2, tt.fmax}
				ph := []float64{rng.Float64() * 6, rng.Float64() * 6, rng.Float64() * 6}
				u, y = sines(n, fs, ph), sines(n, fs, []float64{ph[2], ph[0], ph[1]})
			}
			d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
		}
		factor, band := Suggest(&d)
		switch {
		case tt.fmax == 0 || 2*Rate*tt.fmax > 1:
			if factor != 1 {
				t.Errorf("%s: factor %d (band %.4f), want 1", tt.name, factor, band)
			}
		default:
			if band < tt.fmax || band > tt.fmax+0.01 {
				t.Errorf("%s: band %.4f, want just above %.4f", tt.name, band, tt.fmax)
			}
			if Rate*band*float64(factor) > 1 || Rate*band*float64(factor+1) <= 1 || PassEdge(factor) < band {
				t.Errorf("%s: factor %d for band %.4f; want the largest with a new rate ≥ %d times the band", tt.name, factor, band, Rate)
			}
		}
	}
}
