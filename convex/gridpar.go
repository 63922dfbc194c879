package convex

import "runtime"

// The uniform rows of the blocks (ipBlock.gridH) are applied with one DCT-I per block, each on
// the block's own transform and buffers. On the fine grid of exactGridMul (128 001 points a
// block at the robot's size) these transforms are a third of an iteration, serial while the
// factorization uses every core; from parGridMin grid points in all, gridEach hands the blocks
// to the workers in turn. Each block's transform is the same whichever worker runs it, so the
// result does not depend on the number of workers.
const parGridMin = 1 << 15

// gridEach calls f for every block with uniform rows, in parallel when they are large.
func (ip *ipSolver) gridEach(f func(bl *ipBlock)) {
	var gb []*ipBlock
	total := 0
	for _, bl := range ip.blocks {
		if bl.gridH > 0 {
			gb = append(gb, bl)
			total += bl.gridH
		}
	}
	if runtime.GOMAXPROCS(0) <= 1 || len(gb) <= 1 || total < parGridMin {
		for _, bl := range gb {
			f(bl)
		}
		return
	}
	parStrided(len(gb), runtime.GOMAXPROCS(0), func(k int) { f(gb[k]) })
}
