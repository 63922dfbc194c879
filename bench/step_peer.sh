#!/bin/sh
# One Adam mini-batch step (8 × 250, m_N = 10, m_G = 50), Go against PyTorch
# eager on the same CPU cores, alternating, ROUNDS rounds (issue 28's step
# target). Go: graph.BenchmarkMiniBatchStep (forward and backward of the
# open-loop loss to θ_N's gradient; ns/op is the mean over 1000 steps,
# min-ms and median-ms the fastest and the median step's wall time,
# cpu-ms/op the process CPU time per step) at GOMAXPROCS 1 and 2. PyTorch:
# bench/torch_nfir.py --bench step, the same computation (min, median and
# mean of 1000 steps) with 1 and 2 threads, float32 and float64. Run from the
# repository root:
#   [REPS=1000] sh bench/step_peer.sh [ROUNDS] [PYTHON]
set -eu
# OpenMP threads wait passively: its default spin-wait makes torch's 2-thread
# step 10-100x slower on a machine shared with other work.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
rounds=${1:-5}
py=${2:-/usr/bin/python3}
bin=${TMPDIR:-/tmp}/step_peer_graph.test
go test -c -o "$bin" ./graph/
for i in $(seq "$rounds"); do
	echo "# round $i, load: $(cut -d' ' -f1-3 /proc/loadavg), OMP_WAIT_POLICY=$OMP_WAIT_POLICY"
	for p in 1 2; do
		GOMAXPROCS=$p "$bin" -test.run XXX -test.bench 'MiniBatchStep$' -test.benchtime 1000x | grep Benchmark
	done
	for t in 1 2; do
		"$py" bench/torch_nfir.py --device cpu --threads $t --bench step --dtype all --reps "${REPS:-1000}" | grep -v '^torch' | sed "s/^/threads=$t /"
	done
done
