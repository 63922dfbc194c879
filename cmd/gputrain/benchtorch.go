package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/passivenfir/gputrain/internal/atomicfile"
	"github.com/passivenfir/gputrain/trainbench"
)

// peerFlags are bench train's flags of the PyTorch peer.
type peerFlags struct {
	on      bool
	python  string
	dtypes  string
	threads int
}

func (p *peerFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&p.on, "torch", false, `also run the same Algorithm 1 in PyTorch on the CPU after each case, and compare (--json: {"comparisons": [{"case", "go", "torch": […], "target_fit", "go_time", "torch_time", "ratio"}]})`)
	fs.StringVar(&p.python, "python", "python3", "with --torch: the Python that has torch and cvxopt")
	fs.StringVar(&p.dtypes, "torch-dtypes", "float32,float64", "with --torch: the peer's precisions, run in this order")
	fs.IntVar(&p.threads, "torch-threads", 2, "with --torch: torch.set_num_threads of the peer")
}

// runBenchTrainPeer is "gputrain bench train --torch": each case in Go, then
// in the PyTorch peer, and the ratio of their times to the common Fit.
func runBenchTrainPeer(e *env, opt trainbench.Options, pf peerFlags, out string, jsonOut bool, args []string) error {
	peer := trainbench.Peer{Python: pf.python, Threads: pf.threads}
	for _, d := range strings.Split(pf.dtypes, ",") {
		if d = strings.TrimSpace(d); d != "float32" && d != "float64" {
			return usagef("--torch-dtypes: %q is not float32 or float64", d)
		}
		peer.DTypes = append(peer.DTypes, strings.TrimSpace(d))
	}
	if pf.threads < 1 {
		return usagef("--torch-threads %d: must be ≥ 1", pf.threads)
	}
	res, err := trainbench.RunWithPeer(e.ctx, opt, peer)
	if err != nil && res == nil {
		if errors.Is(err, trainbench.ErrNoTorch) {
			return badInput(fmt.Errorf("--torch: %w", err))
		}
		if errors.Is(err, trainbench.ErrCase) {
			return badInput(fmt.Errorf("--cases: %w", err))
		}
		return failf("%v", err)
	}
	var md bytes.Buffer
	trainbench.MarkdownPeer(&md, res, strings.TrimSpace("gputrain bench train "+strings.Join(args, " ")))
	if out != "" && len(res) > 0 {
		if werr := atomicfile.Write(out, func(w io.Writer) error { _, err := w.Write(md.Bytes()); return err }); werr != nil {
			return failf("--out %s: %v", out, werr)
		}
	}
	if jsonOut {
		if werr := writeJSON(e.stdout, map[string]any{"comparisons": res}); werr != nil {
			return werr
		}
	} else {
		e.stdout.Write(md.Bytes())
	}
	if err != nil {
		return failf("interrupted after %d cases: %v", len(res), err)
	}
	for _, c := range res {
		if c.Go.Error != "" {
			return failf("%s: %s", c.Case, c.Go.Error)
		}
		for _, t := range c.Torch {
			if t.Error != "" {
				return failf("%s: torch %s: %s", c.Case, t.DType, t.Error)
			}
		}
	}
	return nil
}
