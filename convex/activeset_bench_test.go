package convex

import (
	"fmt"
	"testing"
)

// BenchmarkMethods times the two inner solvers side by side on exact-mode problems: the paper's
// Table I filter at m_G = 200 (one block, decay bounds) and the robot-like θ_G step of four
// m_G-tap blocks (n = 4·m_G; n = 2000 is the robot, skipped with -short, and takes minutes), with
// the default (tight) options and with the trainer's AcceptTol = ShiftTol = 1e-6.
func BenchmarkMethods(b *testing.B) {
	methods := []Method{MethodInteriorPoint, MethodActiveSet}
	P, bb := msdGram(b, 200)
	msd := &Problem{P: P, B: bb, GammaG: 1, Blocks: []Block{{Offset: 0, Len: 200, Kind: Exact, Rho: 100, Decay: 0.93}}}
	for _, m := range methods {
		b.Run(fmt.Sprintf("TableI/mG=200/%v", m), func(b *testing.B) { benchSolve(b, msd, &Options{Method: m}) })
	}
	for _, mG := range []int{125, 250, 500} {
		if mG == 500 && testing.Short() {
			continue
		}
		p := robotLike(mG)
		for _, m := range methods {
			if mG < 500 { // at n = 2000 the interior point ends in ErrIterationLimit without AcceptTol
				b.Run(fmt.Sprintf("RobotLike/n=%d/%v", 4*mG, m), func(b *testing.B) { benchSolve(b, p, &Options{Method: m}) })
			}
			b.Run(fmt.Sprintf("RobotLike/n=%d/trainer/%v", 4*mG, m), func(b *testing.B) {
				benchSolve(b, p, &Options{Method: m, AcceptTol: 1e-6, ShiftTol: 1e-6})
			})
		}
	}
}

// robotLike is robotLikeProblem with blocks of mG taps.
func robotLike(mG int) *Problem {
	P, b := robotLikeGram(mG, 1984, 1)
	p := &Problem{P: P, B: b, GammaG: 10}
	for j := 0; j < 4; j++ {
		p.Blocks = append(p.Blocks, Block{Offset: mG * j, Len: mG, Kind: Exact})
	}
	return p
}
