package pow2

import (
	"math"
	"testing"
)

func TestNearestRatio(t *testing.T) {
	for _, c := range []struct{ num, den, want float64 }{
		{1, 1, 1},
		{6.7, 6.7, 1},
		{6.7, 7.13, 1},        // log2 ratio −0.09
		{1.5, 20.8, 0x1p-4},   // −3.79
		{1, 1e-3, 0x1p10},     // 9.97
		{1, 1e-320, 0x1p1023}, // clamped, no overflow of 1/1e-320
		{1e-320, 1e300, 0x1p-1022},
		{3, 2, 2}, // log2 1.5 = 0.585 rounds up
		{0, 1, 1}, {1, 0, 1}, {math.Inf(1), 1, 1}, {math.NaN(), 1, 1}, {-2, 1, 1},
	} {
		if got := NearestRatio(c.num, c.den); got != c.want {
			t.Errorf("NearestRatio(%g, %g) = %g, want %g", c.num, c.den, got, c.want)
		}
	}
}

func TestScale(t *testing.T) {
	if Scale(nil, 2) != nil {
		t.Error("Scale(nil) is not nil")
	}
	x := []float64{1, -3, 0.5}
	y := Scale(x, 0x1p-3)
	if y[0] != 0.125 || y[1] != -0.375 || y[2] != 0.0625 || x[0] != 1 {
		t.Errorf("Scale(%v, 1/8) = %v", x, y)
	}
}
