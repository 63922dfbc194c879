package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAverage: for the same (u, q) the averaged operator's output is the mean
// of the members' outputs (a float64 reference: the members run one by one),
// members of different widths included; FF models agree in closed loop too,
// and the average of passive members certifies.
func TestAverage(t *testing.T) {
	for _, c := range structures {
		for _, S := range []int{1, 2, 3} {
			var members []*NFIR
			for s := range S {
				st := c.s
				if s == 1 && len(st.Hidden) > 0 { // a member of other widths
					st.Hidden = append([]int(nil), st.Hidden...)
					st.Hidden[0]++
					st.Branches++
				}
				members = append(members, randomModel(t, st, uint64(10*S+s)))
			}
			avg, err := Average(members...)
			if err != nil {
				t.Fatalf("%s, %d members: %v", c.name, S, err)
			}
			rng := rand.New(rand.NewPCG(uint64(S), 5))
			u, q := randn(rng, 60), randn(rng, 60)
			got, err := avg.Forward(u, q)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, len(u))
			for _, m := range members {
				y, err := m.Forward(u, q)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					want[i] += y[i] / float64(S)
				}
			}
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
					t.Fatalf("%s, %d members: y(%d) = %.15g, mean of members %.15g", c.name, S, i, got[i], want[i])
				}
			}
			if !c.s.Feedback {
				ys, _ := avg.Simulate(u)
				for i := range want {
					if math.Abs(ys[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
						t.Fatalf("%s (FF), %d members: closed-loop y(%d) = %.15g, want %.15g", c.name, S, i, ys[i], want[i])
					}
				}
			}
			cert, err := avg.Certify()
			if err != nil || !cert.Passive {
				t.Errorf("%s, %d members: the average of passive members does not certify: %v %+v", c.name, S, err, cert)
			}
			wantBranches := 0
			for _, m := range members {
				wantBranches += m.Branches
			}
			if avg.Branches != wantBranches {
				t.Errorf("%s: %d branches, want %d", c.name, avg.Branches, wantBranches)
			}
		}
	}
}

func TestAverageErrors(t *testing.T) {
	a := randomModel(t, structures[1].s, 1)
	other := structures[1].s
	other.R2++
	b := randomModel(t, other, 2)
	c := randomModel(t, structures[1].s, 3)
	c.UScaler.Mean += 1
	for _, tc := range []struct {
		name    string
		members []*NFIR
	}{
		{"none", nil},
		{"nil member", []*NFIR{a, nil}},
		{"other memory", []*NFIR{a, b}},
		{"other scalers", []*NFIR{a, c}},
		{"FF with FB", []*NFIR{randomModel(t, structures[0].s, 4), a}},
	} {
		if _, err := Average(tc.members...); !errors.Is(err, ErrShape) {
			t.Errorf("%s: error %v, want ErrShape", tc.name, err)
		}
	}
}
