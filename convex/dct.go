package convex

import (
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// The interior-point method applies the uniform rows of a block (ipBlock.gridH) with a DCT-I of
// gridH+1 points five times or more per iteration: at m_G = 200 (1601 points) gonum's
// transform, whose FFTPACK port reaches its arrays through accessor methods, took a fifth of an
// exact-mode solve. dctI computes the same transform by the same method (FFTPACK's cost: a
// real FFT of gridH points) with a real FFT built on a mixed-radix Stockham complex FFT of
// gridH/2 points over plain slices and precomputed twiddles. It is tested against gonum's
// transform (TestDCTI); the certificate keeps gonum's, for which its rounding bounds were
// checked.

// dct1 is a DCT-I of a fixed length: Transform(dst, src) sets dst[k] = src[0] + (−1)^k src[N] +
// 2Σ_{j=1}^{N−1} src[j]·cos(πjk/N), N = len(src)−1, like gonum's fourier.DCT.
type dct1 interface {
	Transform(dst, src []float64) []float64
}

// newDCT1 returns a dctI of n points when n−1 is even with n−1 ≥ 8 and (n−1)/2 has no prime
// factor above 5, and gonum's transform otherwise.
func newDCT1(n int) dct1 {
	if t := newDCTI(n); t != nil {
		return t
	}
	return fourier.NewDCT(n)
}

// cfftStage is one radix-p pass of the Stockham complex FFT: m butterflies of p points at
// stride s, with twiddles tw[q·(p−1)+j−1] = e^{−2πi·j·q/(p·m)}.
type cfftStage struct {
	p, m, s int
	tw      []complex128
}

// cfft is a forward complex FFT (e^{−2πijk/n}) of a fixed length n = 2^a·3^b·5^c.
type cfft struct {
	n      int
	stages []cfftStage
	root3  complex128    // e^{−2πi/3}
	root5  [4]complex128 // e^{−2πij/5}, j = 1..4
}

func newCFFT(n int) *cfft {
	var ps []int
	r := n
	for r%4 == 0 {
		ps, r = append(ps, 4), r/4
	}
	for _, p := range []int{2, 3, 5} {
		for r%p == 0 {
			ps, r = append(ps, p), r/p
		}
	}
	if r != 1 {
		return nil
	}
	f := &cfft{n: n}
	f.root3 = cexpm(1, 3)
	for j := range f.root5 {
		f.root5[j] = cexpm(j+1, 5)
	}
	len0, s := n, 1
	for _, p := range ps {
		m := len0 / p
		st := cfftStage{p: p, m: m, s: s, tw: make([]complex128, m*(p-1))}
		for q := 0; q < m; q++ {
			for j := 1; j < p; j++ {
				st.tw[q*(p-1)+j-1] = cexpm(j*q, len0)
			}
		}
		f.stages = append(f.stages, st)
		len0, s = m, s*p
	}
	return f
}

// cexpm returns e^{−2πi·k/n}, with the angle reduced to [0, π/4] first so that every twiddle
// is correctly rounded to within an ulp or two.
func cexpm(k, n int) complex128 {
	k %= n
	// e^{−2πik/n} by octant symmetry of the angle θ = 2πk/n
	k8 := 8 * k
	oct := k8 / n // θ in [oct·π/4, (oct+1)·π/4)
	// θ = base ± φ with φ ∈ [0, π/4]
	var phi, sp, cp float64
	switch oct {
	case 0, 2, 4, 6:
		phi = 2 * math.Pi * float64(k8-2*oct/2*n) / float64(8*n)
	default:
		phi = 2 * math.Pi * float64(2*(oct+1)/2*n-k8) / float64(8*n)
	}
	sp, cp = math.Sincos(phi)
	var c, s float64
	switch oct {
	case 0:
		c, s = cp, sp
	case 1:
		c, s = sp, cp
	case 2:
		c, s = -sp, cp
	case 3:
		c, s = -cp, sp
	case 4:
		c, s = -cp, -sp
	case 5:
		c, s = -sp, -cp
	case 6:
		c, s = sp, -cp
	default:
		c, s = cp, -sp
	}
	return complex(c, -s)
}

// transform computes the FFT of x, using y as scratch; it returns the slice (x or y) that
// holds the result.
func (f *cfft) transform(x, y []complex128) []complex128 {
	for _, st := range f.stages {
		m, s := st.m, st.s
		switch st.p {
		case 4:
			for q := 0; q < m; q++ {
				w1, w2, w3 := st.tw[3*q], st.tw[3*q+1], st.tw[3*q+2]
				for r := 0; r < s; r++ {
					a := x[r+s*q]
					b := x[r+s*(q+m)]
					c := x[r+s*(q+2*m)]
					d := x[r+s*(q+3*m)]
					apc, amc := a+c, a-c
					bpd, bmd := b+d, b-d
					jbmd := complex(imag(bmd), -real(bmd)) // −i·(b − d)
					o := y[r+s*4*q:]
					o[0] = apc + bpd
					o[s] = (amc + jbmd) * w1
					o[2*s] = (apc - bpd) * w2
					o[3*s] = (amc - jbmd) * w3
				}
			}
		case 2:
			for q := 0; q < m; q++ {
				w1 := st.tw[q]
				for r := 0; r < s; r++ {
					a := x[r+s*q]
					b := x[r+s*(q+m)]
					o := y[r+s*2*q:]
					o[0] = a + b
					o[s] = (a - b) * w1
				}
			}
		case 3:
			w := f.root3
			for q := 0; q < m; q++ {
				w1, w2 := st.tw[2*q], st.tw[2*q+1]
				for r := 0; r < s; r++ {
					a := x[r+s*q]
					b := x[r+s*(q+m)]
					c := x[r+s*(q+2*m)]
					o := y[r+s*3*q:]
					o[0] = a + b + c
					o[s] = (a + b*w + c*conjc(w)) * w1
					o[2*s] = (a + b*conjc(w) + c*w) * w2
				}
			}
		default: // 5
			w1r, w2r := f.root5[0], f.root5[1]
			for q := 0; q < m; q++ {
				tw := st.tw[4*q : 4*q+4]
				for r := 0; r < s; r++ {
					a := x[r+s*q]
					b := x[r+s*(q+m)]
					c := x[r+s*(q+2*m)]
					d := x[r+s*(q+3*m)]
					e := x[r+s*(q+4*m)]
					// with ω = e^{−2πi/5}: ω⁴ = conj(ω), ω³ = conj(ω²)
					bpe, bme := b+e, b-e
					cpd, cmd := c+d, c-d
					o := y[r+s*5*q:]
					o[0] = a + bpe + cpd
					// X_j = a + (b+e)Re ω^j + (c+d)Re ω^{2j} + i[(b−e)Im ω^j + (c−d)Im ω^{2j}]
					r1 := a + bpe*complex(real(w1r), 0) + cpd*complex(real(w2r), 0)
					r2 := a + bpe*complex(real(w2r), 0) + cpd*complex(real(w1r), 0)
					i1 := bme*complex(0, imag(w1r)) + cmd*complex(0, imag(w2r))
					i2 := bme*complex(0, imag(w2r)) - cmd*complex(0, imag(w1r))
					o[s] = (r1 + i1) * tw[0]
					o[2*s] = (r2 + i2) * tw[1]
					o[3*s] = (r2 - i2) * tw[2]
					o[4*s] = (r1 - i1) * tw[3]
				}
			}
		}
		x, y = y, x
	}
	return x
}

func conjc(z complex128) complex128 { return complex(real(z), -imag(z)) }

// dctI is FFTPACK's DCT-I (cost) of n = N+1 points, N even, on a real FFT of N points done as
// a complex FFT of N/2 points.
type dctI struct {
	n, N   int
	f      *cfft
	ws, wc []float64    // 2sin(πk/N), 2cos(πk/N), k < N/2
	rt     []complex128 // e^{−2πik/N}, k ≤ N/2: the real FFT's split
	t      []float64
	z, zw  []complex128
}

func newDCTI(n int) *dctI {
	N := n - 1
	if N < 8 || N%2 != 0 {
		return nil
	}
	f := newCFFT(N / 2)
	if f == nil {
		return nil
	}
	d := &dctI{n: n, N: N, f: f}
	d.ws = make([]float64, N/2)
	d.wc = make([]float64, N/2)
	for k := range d.ws {
		e := cexpm(k, 2*N) // e^{−iπk/N}
		d.wc[k], d.ws[k] = 2*real(e), -2*imag(e)
	}
	d.rt = make([]complex128, N/2+1)
	for k := range d.rt {
		d.rt[k] = cexpm(k, N)
	}
	d.t = make([]float64, N)
	d.z = make([]complex128, N/2)
	d.zw = make([]complex128, N/2)
	return d
}

// Transform sets dst to the DCT-I of src (both of length n) and returns dst; see dct1.
func (d *dctI) Transform(dst, src []float64) []float64 {
	N := d.N
	if len(src) != d.n || len(dst) != d.n {
		panic("convex: dctI: length mismatch")
	}
	// FFTPACK cost: t_k = x_k + x_{N−k} ∓ 2sin(πk/N)(x_k − x_{N−k}), c1 = Σ 2cos(πk/N)(x_k − x_{N−k})
	t := d.t
	c1 := src[0] - src[N]
	t[0] = src[0] + src[N]
	for k := 1; k < N/2; k++ {
		t1 := src[k] + src[N-k]
		t2 := src[k] - src[N-k]
		c1 += d.wc[k] * t2
		t2 *= d.ws[k]
		t[k] = t1 - t2
		t[N-k] = t1 + t2
	}
	t[N/2] = 2 * src[N/2]
	// real FFT of t (N points): Z = FFT(t_{2j} + i t_{2j+1}), then X_k = E_k + e^{−2πik/N} O_k
	M := N / 2
	z := d.z
	for j := range z {
		z[j] = complex(t[2*j], t[2*j+1])
	}
	Z := d.f.transform(z, d.zw)
	// y_{2k} = Re X_k (k ≤ N/2), y_{2k+1} = c1 − Σ_{i=1}^{k} Im X_i (k < N/2)
	run := c1
	dst[1] = c1
	for k := 0; k <= M; k++ {
		zk := Z[k%M]
		zc := conjc(Z[(M-k)%M])
		e := 0.5 * (zk + zc)
		o := 0.5 * (zk - zc)
		o = complex(imag(o), -real(o)) // (Z_k − conj Z_{M−k})/(2i)
		x := e + d.rt[k]*o
		dst[2*k] = real(x)
		if k > 0 && k < M {
			run -= imag(x)
			dst[2*k+1] = run
		}
	}
	return dst
}
