package convex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
)

// TestDCTI compares dctI with gonum's DCT-I (FFTPACK's cost) on seeded random inputs, for
// lengths with every radix of the complex FFT, and checks that newDCT1 falls back to gonum
// where dctI does not apply.
func TestDCTI(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{9, 11, 13, 17, 21, 25, 33, 41, 49, 61, 65, 97, 101, 129, 161, 201, 401, 1601, 2001, 2049, 4001, 6251} {
		d := newDCTI(n)
		if d == nil {
			t.Fatalf("n = %d: newDCTI = nil", n)
		}
		ref := fourier.NewDCT(n)
		src := make([]float64, n)
		for i := range src {
			src[i] = rng.NormFloat64()
		}
		want := ref.Transform(make([]float64, n), src)
		got := d.Transform(make([]float64, n), append([]float64(nil), src...))
		scale := 0.0
		for _, v := range src {
			scale += math.Abs(v)
		}
		for k := range want {
			if e := math.Abs(got[k] - want[k]); !(e <= 1e-14*scale) {
				t.Fatalf("n = %d: y[%d] = %v, gonum %v (|diff| %.3g, Σ|x| %.3g)", n, k, got[k], want[k], e, scale)
			}
		}
	}
	for _, n := range []int{2, 5, 8, 10, 15, 15 + 1 + 14, 2*7 + 1} {
		if d := newDCTI(n); d != nil {
			t.Errorf("n = %d: dctI built for an unsupported length", n)
		}
		if _, ok := newDCT1(n).(*fourier.DCT); !ok {
			t.Errorf("n = %d: newDCT1 did not fall back to gonum", n)
		}
	}
}

func TestCFFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 16, 20, 30, 60, 64, 100, 120, 800} {
		f := newCFFT(n)
		x := make([]complex128, n)
		for i := range x {
			x[i] = complex(rng.NormFloat64(), rng.NormFloat64())
		}
		want := make([]complex128, n)
		for k := range want {
			for j, v := range x {
				want[k] += v * cexpm(j*k, n)
			}
		}
		got := f.transform(append([]complex128(nil), x...), make([]complex128, n))
		for k := range want {
			if e := cabs(got[k] - want[k]); e > 1e-13*float64(n) {
				t.Fatalf("n = %d: X[%d] = %v, want %v", n, k, got[k], want[k])
			}
		}
	}
}

func cabs(z complex128) float64 { return math.Hypot(real(z), imag(z)) }

func BenchmarkDCTI(b *testing.B) {
	for _, n := range []int{1601, 4001, 128001} {
		src := make([]float64, n)
		for i := range src {
			src[i] = float64(i%7) - 3
		}
		dst := make([]float64, n)
		b.Run(fmt.Sprintf("n=%d/gonum", n), func(b *testing.B) {
			d := fourier.NewDCT(n)
			for b.Loop() {
				d.Transform(dst, src)
			}
		})
		b.Run(fmt.Sprintf("n=%d/dctI", n), func(b *testing.B) {
			d := newDCTI(n)
			for b.Loop() {
				d.Transform(dst, src)
			}
		})
	}
}

// TestCosTable4 checks that the interleaved rows of cosTable4 are bit for bit those of cosTable.
func TestCosTable4(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const w = 399
	omega := make([]float64, 9)
	for i := range omega {
		omega[i] = math.Pi * rng.Float64()
	}
	tab := make([]float64, len(omega)*w)
	cosTable4(tab, w, [4]int{7, 2, 0, 5}, omega)
	for _, i := range []int{7, 2, 0, 5} {
		want := make([]float64, w)
		cosTable(want, omega[i])
		for m, v := range want {
			if tab[i*w+m] != v {
				t.Fatalf("row %d, m = %d: %v, cosTable %v", i, m, tab[i*w+m], v)
			}
		}
	}
}

// TestEval2 checks that eval2 gives bit for bit eval's values at both points.
func TestEval2(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, L := range []int{1, 2, 15, 16, 17, 200, 501} {
		g := make([]float64, L)
		for k := range g {
			g[k] = rng.NormFloat64()
		}
		pl := newPoly(g)
		for range 20 {
			wa, wb := math.Pi*rng.Float64(), math.Pi*rng.Float64()
			pa, pa1, pa2, pb, pb1, pb2 := pl.eval2(wa, wb)
			qa, qa1, qa2 := pl.eval(wa)
			qb, qb1, qb2 := pl.eval(wb)
			if pa != qa || pa1 != qa1 || pa2 != qa2 || pb != qb || pb1 != qb1 || pb2 != qb2 {
				t.Fatalf("L = %d, ω = %v, %v: eval2 differs from eval", L, wa, wb)
			}
		}
	}
}
