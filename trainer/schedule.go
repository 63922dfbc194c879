package trainer

import "math"

// oneCycle is PyTorch's OneCycleLR with its defaults (30% cosine warm-up
// from peak/25, cosine annealing to peak/(25·10⁴)), the schedule of the
// paper's BPTT step.
func oneCycle(step, total int, peak float64) float64 {
	if total <= 1 {
		return peak
	}
	initial, final := peak/25, peak/25/1e4
	up := int(0.3*float64(total)) - 1
	if up < 1 {
		up = 1
	}
	cosAnneal := func(a, b, pct float64) float64 { return b + (a-b)*(1+math.Cos(math.Pi*pct))/2 }
	if step <= up {
		return cosAnneal(initial, peak, float64(step)/float64(up))
	}
	return cosAnneal(peak, final, float64(step-up)/float64(total-1-up))
}
