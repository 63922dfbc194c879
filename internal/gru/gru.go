// Package gru is the gated recurrent unit cell (Cho et al. 2014, in
// PyTorch's convention) with its adjoint, for the models that carry a
// learned state: the GRU baseline (baselines) and the loop family's
// recurrent lift (loop). Parameters are one flat vector, so that the
// models' optimizers and files treat them like any other.
package gru

import (
	"math"
	"math/rand/v2"
)

// Cell is a GRU of Units units reading In inputs:
//
//	r = σ(W_ir x + W_hr h + b_r),  z = σ(W_iz x + W_hz h + b_z),
//	n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)),
//	h' = (1 − z) ⊙ n + z ⊙ h.
//
// Its parameters θ are, in order: W_i (3·Units×In row-major; the r, z, n
// rows), W_h (3·Units×Units row-major; r, z, n), b (3·Units: b_r, b_z,
// b_in) and b_hn (Units).
type Cell struct{ In, Units int }

// NumParams is 3H·In + 3H² + 4H for H = Units.
func (c Cell) NumParams() int { return 3*c.Units*c.In + 3*c.Units*c.Units + 4*c.Units }

// Gates is the number of values Step records per step for Adjoint: r, z,
// n and W_hn h + b_hn.
func (c Cell) Gates() int { return 4 * c.Units }

type offsets struct{ wi, wh, b, bhn, end int }

func (c Cell) offsets() offsets {
	h := c.Units
	o := offsets{wi: 0, wh: 3 * h * c.In}
	o.b = o.wh + 3*h*h
	o.bhn = o.b + 3*h
	o.end = o.bhn + h
	return o
}

func sigmoid(a float64) float64 { return 1 / (1 + math.Exp(-a)) }

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// inDot is row j of W_i times x.
func (c Cell) inDot(wi []float64, j int, x []float64) float64 {
	if c.In == 1 {
		return wi[j] * x[0]
	}
	return dot(wi[j*c.In:(j+1)*c.In], x)
}

// Step writes the next state h of the cell with parameters theta from the
// input x and the state hp, and records its gates (Gates values) for
// Adjoint.
func (c Cell) Step(theta, x, hp, h, gates []float64) {
	H := c.Units
	o := c.offsets()
	wi, wh, b, bhn := theta[o.wi:o.wh], theta[o.wh:o.b], theta[o.b:o.bhn], theta[o.bhn:o.end]
	r, z, n, hn := gates[:H], gates[H:2*H], gates[2*H:3*H], gates[3*H:4*H]
	for j := range H {
		ar := c.inDot(wi, j, x) + b[j] + dot(wh[j*H:(j+1)*H], hp)
		az := c.inDot(wi, H+j, x) + b[H+j] + dot(wh[(H+j)*H:(H+j+1)*H], hp)
		hn[j] = dot(wh[(2*H+j)*H:(2*H+j+1)*H], hp) + bhn[j]
		r[j], z[j] = sigmoid(ar), sigmoid(az)
		n[j] = math.Tanh(c.inDot(wi, 2*H+j, x) + b[2*H+j] + r[j]*hn[j])
		h[j] = (1-z[j])*n[j] + z[j]*hp[j]
	}
}

// Adjoint is the adjoint of one Step: given the adjoint dh of its output
// state, it writes that of the previous state to dhp, adds that of the
// input to dx (nil: not wanted) and that of the parameters to grad. work
// needs 3·Units values.
func (c Cell) Adjoint(theta, x, hp, gates, dh, dhp, dx, grad, work []float64) {
	H, I := c.Units, c.In
	o := c.offsets()
	wi, wh := theta[o.wi:o.wh], theta[o.wh:o.b]
	gwi, gwh, gb, gbhn := grad[o.wi:o.wh], grad[o.wh:o.b], grad[o.b:o.bhn], grad[o.bhn:o.end]
	r, z, n, hn := gates[:H], gates[H:2*H], gates[2*H:3*H], gates[3*H:4*H]
	dar, daz, dhn := work[:H], work[H:2*H], work[2*H:3*H]
	for j := range H {
		dn := dh[j] * (1 - z[j])
		dz := dh[j] * (hp[j] - n[j])
		dhp[j] = dh[j] * z[j]
		dan := dn * (1 - n[j]*n[j])
		dhn[j] = dan * r[j]
		dar[j] = dan * hn[j] * r[j] * (1 - r[j])
		daz[j] = dz * z[j] * (1 - z[j])
		for i, xi := range x {
			gwi[j*I+i] += dar[j] * xi
			gwi[(H+j)*I+i] += daz[j] * xi
			gwi[(2*H+j)*I+i] += dan * xi
		}
		if dx != nil {
			for i := range x {
				dx[i] += dar[j]*wi[j*I+i] + daz[j]*wi[(H+j)*I+i] + dan*wi[(2*H+j)*I+i]
			}
		}
		gb[j] += dar[j]
		gb[H+j] += daz[j]
		gb[2*H+j] += dan
		gbhn[j] += dhn[j]
	}
	for j := range H {
		rr, rz, rn := wh[j*H:(j+1)*H], wh[(H+j)*H:(H+j+1)*H], wh[(2*H+j)*H:(2*H+j+1)*H]
		gr, gz, gn := gwh[j*H:(j+1)*H], gwh[(H+j)*H:(H+j+1)*H], gwh[(2*H+j)*H:(2*H+j+1)*H]
		a, bz, bn := dar[j], daz[j], dhn[j]
		for k := range H {
			gr[k] += a * hp[k]
			gz[k] += bz * hp[k]
			gn[k] += bn * hp[k]
			dhp[k] += a*rr[k] + bz*rz[k] + bn*rn[k]
		}
	}
}

// Init draws every parameter uniformly in ±1/√Units, PyTorch's default.
func (c Cell) Init(theta []float64, rng *rand.Rand) {
	a := 1 / math.Sqrt(float64(c.Units))
	for i := range theta[:c.NumParams()] {
		theta[i] = a * (2*rng.Float64() - 1)
	}
}
