package loop

import "math"

// Sections maps the free parameters α, β of H1's first-order sections to
// their poles a and gains b (all of length P1):
//
//	s_k(t) = a_k s_k(t−1) + b_k e(t),  a_k = (1−Margin)·tanh α_k,  b_k = β_k²·(1 − a_k),
//
// each section adding s_k(t) to H1's output. Every parameter value gives a
// passive section: |a_k| ≤ 1 − Margin < 1 (stable, also after rounding,
// where tanh α alone reaches 1), b_k ≥ 0, and
//
//	Re S_k(e^{iω}) = b_k (1 − a_k cos ω)/(1 − 2 a_k cos ω + a_k²) ≥ b_k/(1 + |a_k|) ≥ 0,
//
// so H1 stays a sum of passive operators (Theorem 2) and the loop passive.
// β² is the section's DC gain, b/(1−a): the gain and the time constant are
// then separate parameters, and Adam's steps, of a size set by the learning
// rate, change the gain by the same relative amount whatever the time
// constant (b alone would need steps of 1/τ). Near a = 1, 1 − a ≈ 2e^{−2α}:
// a step in α is a relative step in the time constant, which is what a
// memory spanning decades needs.
func Sections(alpha, beta, a, b []float64) {
	for k := range alpha {
		a[k] = (1 - Margin) * math.Tanh(alpha[k])
		b[k] = beta[k] * beta[k] * (1 - a[k])
	}
}

// sectionsGrad adds to dalpha, dbeta the gradient through Sections of the
// poles' and gains' adjoints da, db.
func sectionsGrad(alpha, beta, da, db, dalpha, dbeta []float64) {
	for k := range alpha {
		th := math.Tanh(alpha[k])
		a := (1 - Margin) * th
		dadal := (1 - Margin) * (1 - th*th)
		bb := beta[k] * beta[k]
		dalpha[k] += (da[k] - db[k]*bb) * dadal
		dbeta[k] += db[k] * 2 * beta[k] * (1 - a)
	}
}

// SectionMinRe is a lower bound of min_ω Re S(e^{iω}) of a section of
// pole a and gain b, b/(1+|a|) rounded down, and the ω where it occurs (π
// for a ≥ 0, 0 otherwise). The section is passive when |a| < 1 and b ≥ 0;
// the bound is then ≥ 0.
func SectionMinRe(a, b float64) (minRe, omega float64) {
	if a >= 0 {
		omega = math.Pi
	}
	v := b / (1 + math.Abs(a))
	if v > 0 { // two ulps down: the division and the sum round once each
		v = math.Nextafter(math.Nextafter(v, 0), 0)
	}
	return v, omega
}

// sectionTaus are the initial time constants of p sections for a loop whose
// linear FIR holds l taps: log-spaced from l to 16·l samples (one section
// at 4·l, the geometric middle), the slow scales the FIR cannot reach.
func sectionTaus(p, l int) []float64 {
	l = max(l, 8)
	taus := make([]float64, p)
	for k := range taus {
		x := 0.5
		if p > 1 {
			x = float64(k) / float64(p-1)
		}
		taus[k] = float64(l) * math.Pow(16, x)
	}
	return taus
}

// sectionBurnIn is the burn-in Train gives windows of a loop with sections:
// twice the slowest initial time constant, so that a section, simulated
// from rest, has forgotten most (e^{−2}) of the rest it started from
// before the scored samples. 0 without sections.
func (s Structure) sectionBurnIn() int {
	if s.P1 == 0 {
		return 0
	}
	taus := sectionTaus(s.P1, s.L1)
	return int(math.Ceil(2 * taus[len(taus)-1]))
}

// initSections sets the sections' poles to exp(−1/τ) at the time constants
// of sectionTaus and their DC gains to 0.01/P1 in all: small, so that the
// loop starts where it would without them (as InitLinear's FIR, when given).
// It draws no random number: the rest of the initialization is the same
// with and without sections.
func (m *Model) initSections() {
	for k, tau := range sectionTaus(m.P1, m.L1) {
		m.SA[k] = math.Atanh(math.Min(math.Exp(-1/tau), 1-2*Margin) / (1 - Margin))
		m.SB[k] = 0.1 / math.Sqrt(float64(m.P1))
	}
}
