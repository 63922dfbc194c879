package trainbench

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// torchScript is Algorithm 1 in PyTorch (torch_train.py, whose doc string
// says step by step what it mirrors of the Go trainer). It is embedded so
// that the binary runs its peer from any directory.
//
//go:embed torch_train.py
var torchScript []byte

// ErrNoTorch reports that the PyTorch peer cannot run: no Python, or no
// torch or cvxopt in it.
var ErrNoTorch = errors.New("trainbench: the PyTorch peer needs python3 with torch and cvxopt (Debian: apt-get install python3-torch python3-cvxopt)")

// Peer is the PyTorch run of the same Algorithm 1 on the same data, from the
// same starting model, with the same settings.
type Peer struct {
	Python  string   // interpreter ("" : python3 on PATH)
	DTypes  []string // float32, float64 (nil: both, float32 first)
	Threads int      // torch.set_num_threads (0: 2, the CI machine's cores)
	// Dir, when set, receives the script and its input and output files
	// and keeps them, to run the script again by hand (default: a temporary
	// directory, removed).
	Dir string
}

func (p Peer) python() string {
	if p.Python == "" {
		return "python3"
	}
	return p.Python
}

func (p Peer) dtypes() []string {
	if len(p.DTypes) == 0 {
		return []string{"float32", "float64"}
	}
	return p.DTypes
}

// Check says whether the peer can run: its Python imports torch and cvxopt.
// The error wraps ErrNoTorch and says what the import said.
func (p Peer) Check(ctx context.Context) error {
	for _, dt := range p.dtypes() {
		if dt != "float32" && dt != "float64" {
			return fmt.Errorf("trainbench: peer dtype %q: want float32 or float64", dt)
		}
	}
	if p.Threads < 0 {
		return fmt.Errorf("trainbench: peer threads %d: must be ≥ 0", p.Threads)
	}
	out, err := exec.CommandContext(ctx, p.python(), "-c", "import torch, cvxopt, numpy").CombinedOutput()
	if err != nil {
		last := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(last, '\n'); i >= 0 {
			last = last[i+1:]
		}
		if last == "" {
			last = err.Error()
		}
		return fmt.Errorf("%w: %s: %s", ErrNoTorch, p.python(), last)
	}
	return nil
}

// TorchResult is one run of the peer: the fields of Result that it
// measures the same way (the closed-loop curve's clock starts, as the Go
// trainer's, before the features are computed), and where its time went.
type TorchResult struct {
	Case          string  `json:"case"`
	DType         string  `json:"dtype"`
	Threads       int     `json:"threads"`
	Torch         string  `json:"torch"`
	Seconds       float64 `json:"seconds"`
	FinalValFit   float64 `json:"final_val_fit"`
	InitialValFit float64 `json:"initial_val_fit"` // the starting model's, before any step
	// InitialValFits are the starting model's closed-loop Fits of every
	// validation trajectory (null: none or not finite).
	InitialValFits []*float64 `json:"initial_val_fits"`
	ClosedLoop     []Point    `json:"closed_loop"`
	ThetaG         float64    `json:"theta_g_seconds"` // Gram matrices, QPs (cvxopt) and the candidates' scoring
	Adam           float64    `json:"adam_seconds"`    // the θ_N stages, their validation passes included
	Eval           float64    `json:"eval_seconds"`    // the closed-loop evaluation after each iteration
	Error          string     `json:"error,omitempty"`
}

// Comparison is one case run by Go and by the peer, one after the other.
// Target is the Fit both reached, min(final Fits) − Tol; the times are
// those at which each curve first reached it (NaN: never), and Ratio[i] is
// Torch[i]'s time over Go's.
type Comparison struct {
	Case      string        `json:"case"`
	Go        Result        `json:"go"`
	Torch     []TorchResult `json:"torch"`
	Target    float64       `json:"target_fit"`
	GoTime    float64       `json:"go_time"`
	TorchTime []float64     `json:"torch_time"`
	Ratio     []float64     `json:"ratio"`
}

// InitialModel is the model the Go trainer starts from with cfg on train
// (trainer.Train without a warm start): the scalers fitted on the training
// data and the lifting network initialised from the trainer's seeded
// generator, the taps zero. The peer starts from it too, so that the two
// runs differ in their arithmetic only (and in the order of the shuffled
// mini-batches). TestInitialModelIsTheTrainers holds it to the trainer's.
func InitialModel(cfg trainer.Config, train *data.Dataset) (*model.NFIR, error) {
	m, err := model.New(cfg.Structure)
	if err != nil {
		return nil, fmt.Errorf("trainbench: %w", err)
	}
	var us, ys [][]float64
	for _, b := range train.Batches {
		us, ys = append(us, b.U), append(ys, b.Y)
	}
	m.UScaler, m.QScaler = data.FitScaler(us...), data.FitScaler(ys...)
	if cfg.Structure.Branches > 0 {
		// trainer.trainOne's generator and draw order
		rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
		if cfg.Init == trainer.InitFanIn {
			m.Lift.InitFanIn(rng)
		} else {
			m.Lift.InitXavier(rng)
		}
	}
	return m, nil
}

// peerConfig is what the script reads of trainer.Config.
type peerConfig struct {
	Passivity   string  `json:"passivity"`
	H           int     `json:"H"`
	Eps         float64 `json:"eps"`
	Rho         float64 `json:"rho"`
	Decay       float64 `json:"decay"`
	GammaG      float64 `json:"gamma_g"`
	Iters       int     `json:"iters"`
	Epochs      int     `json:"epochs"`
	Patience    int     `json:"patience"`
	Batch       int     `json:"batch"`
	LR          float64 `json:"lr"`
	WeightDecay float64 `json:"weight_decay"`
	Clip        float64 `json:"clip"`
	Monitor     string  `json:"monitor"`
	GramGains   string  `json:"gram_gains"`
	Skip        int     `json:"skip"`
	ValSkip     int     `json:"val_skip"`
	BPTTEpochs  int     `json:"bptt_epochs"`
	Seed        uint64  `json:"seed"`
}

// peerData is a data set as the script reads it; YClean[i] is null when
// batch i has no noise-free output.
type peerData struct {
	U      [][]float64 `json:"u"`
	Y      [][]float64 `json:"y"`
	YClean [][]float64 `json:"y_clean"`
}

func toPeerData(d *data.Dataset) peerData {
	var p peerData
	for _, b := range d.Batches {
		p.U, p.Y, p.YClean = append(p.U, b.U), append(p.Y, b.Y), append(p.YClean, b.YClean)
	}
	return p
}

// checkPeerConfig refuses the settings the script does not implement, before
// any file is written.
func checkPeerConfig(cfg trainer.Config) error {
	switch {
	case cfg.Passivity == trainer.PassivityKYP:
		return errors.New("trainbench: the peer has no KYP θ_G step")
	case cfg.Monitor == trainer.MonitorClosed:
		return errors.New("trainbench: the peer monitors the open-loop validation error only")
	case cfg.BPTTEpochs > 0:
		return errors.New("trainbench: the peer has no BPTT step")
	case cfg.Scale == trainer.ScaleAuto:
		return errors.New("trainbench: the peer trains on the data as given (scale none)")
	case cfg.Members > 1:
		return errors.New("trainbench: the peer trains one model")
	case cfg.Structure.HoldStart:
		return errors.New("trainbench: the peer has no hold-start")
	}
	return nil
}

// RunPeer trains start with cfg on train and val in PyTorch with dtype
// (float32 or float64) and returns the run. When modelOut is not empty the
// script writes its best model there (a model file, passivity "none").
// Lines the script prints go to progress (may be nil).
func (p Peer) RunPeer(ctx context.Context, dtype string, cfg trainer.Config, train, val *data.Dataset, start *model.NFIR, modelOut string, progress func(string)) (TorchResult, error) {
	r := TorchResult{DType: dtype, FinalValFit: math.NaN(), InitialValFit: math.NaN()}
	if err := checkPeerConfig(cfg); err != nil {
		return r, err
	}
	dir := p.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "gputrain-torch-")
		if err != nil {
			return r, fmt.Errorf("trainbench: %w", err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	file := func(name string) string { return filepath.Join(dir, name) }
	pc := peerConfig{Passivity: string(cfg.Passivity), H: cfg.H, Eps: cfg.Eps, Rho: cfg.Rho, Decay: cfg.Decay,
		GammaG: cfg.GammaG, Iters: cfg.Iters, Epochs: cfg.Epochs, Patience: cfg.Patience, Batch: cfg.Batch,
		LR: cfg.LR, WeightDecay: cfg.WeightDecay, Clip: cfg.Clip, Monitor: string(cfg.Monitor),
		GramGains: string(cfg.GramGains), Skip: cfg.Skip, ValSkip: cfg.ValSkip, BPTTEpochs: cfg.BPTTEpochs, Seed: cfg.Seed}
	if pc.GramGains == "" {
		pc.GramGains = string(trainer.GramGainsAuto)
	}
	writes := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"torch_train.py", func(w io.Writer) error { _, err := w.Write(torchScript); return err }},
		{"config.json", func(w io.Writer) error { return json.NewEncoder(w).Encode(pc) }},
		{"data.json", func(w io.Writer) error {
			return json.NewEncoder(w).Encode(map[string]peerData{"train": toPeerData(train), "val": toPeerData(val)})
		}},
		{"model.json", func(w io.Writer) error { return model.Encode(w, start, model.Meta{Ts: train.Ts, Mode: "none"}) }},
	}
	for _, f := range writes {
		if err := writeFile(file(f.name), f.write); err != nil {
			return r, err
		}
	}
	threads := p.Threads
	if threads == 0 {
		threads = 2
	}
	args := []string{file("torch_train.py"), "--data", file("data.json"), "--model", file("model.json"),
		"--config", file("config.json"), "--out", file("out.json"), "--dtype", dtype, "--threads", fmt.Sprint(threads)}
	if modelOut != "" {
		args = append(args, "--model-out", modelOut)
	}
	cmd := exec.CommandContext(ctx, p.python(), args...)
	// cvxopt's BLAS (OpenBLAS) on as many threads as torch: the same cores.
	// OpenMP's threads wait passively: on a shared machine its default
	// spin-wait made torch's 2-thread step 10–100× slower (docs/BENCHMARKS.md,
	// session 18), which would measure the load rather than PyTorch.
	cmd.Env = append(os.Environ(), fmt.Sprintf("OPENBLAS_NUM_THREADS=%d", threads),
		fmt.Sprintf("OMP_NUM_THREADS=%d", threads), "OMP_WAIT_POLICY=PASSIVE")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return r, fmt.Errorf("trainbench: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return r, fmt.Errorf("%w: %v", ErrNoTorch, err)
	}
	var last string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		last = sc.Text()
		if progress != nil {
			progress(last)
		}
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		return r, fmt.Errorf("trainbench: the PyTorch peer (%s): %v: %s", dtype, err, last)
	}
	raw, err := os.ReadFile(file("out.json"))
	if err != nil {
		return r, fmt.Errorf("trainbench: the PyTorch peer's result: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("trainbench: the PyTorch peer's result: %w", err)
	}
	return r, nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("trainbench: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("trainbench: %s: %w", filepath.Base(path), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("trainbench: %w", err)
	}
	return nil
}

// RunWithPeer runs every selected case in Go (as Run) and then in the peer
// for each of its dtypes, case by case, one at a time so that each has the
// machine's cores. A run that fails has its Error set and the others still
// run; a cancelled ctx stops at once with what was measured.
func RunWithPeer(ctx context.Context, opt Options, p Peer) ([]Comparison, error) {
	cases, err := selectCases(opt.Cases)
	if err != nil {
		return nil, err
	}
	if err := p.Check(ctx); err != nil {
		return nil, err
	}
	say := func(s string) {
		if opt.Progress != nil {
			opt.Progress(s)
		}
	}
	var out []Comparison
	for _, c := range cases {
		cmp := Comparison{Case: c.Name, Go: run(ctx, c, opt)}
		say(cmp.Go.String())
		if err := ctx.Err(); err != nil {
			return append(out, cmp), err
		}
		train, val, err := c.Build(ctx, opt.Quick)
		var start *model.NFIR
		if err == nil {
			start, err = InitialModel(Config(opt), train)
		}
		for _, dt := range p.dtypes() {
			tr := TorchResult{Case: c.Name, DType: dt, FinalValFit: math.NaN(), InitialValFit: math.NaN()}
			if err == nil {
				var perr error
				tr, perr = p.RunPeer(ctx, dt, Config(opt), train, val, start, "", say)
				tr.Case = c.Name
				if perr != nil {
					tr.Error = perr.Error()
				}
			} else {
				tr.Error = err.Error()
			}
			cmp.Torch = append(cmp.Torch, tr)
			say(tr.String())
			if err := ctx.Err(); err != nil {
				cmp.compare()
				return append(out, cmp), err
			}
		}
		cmp.compare()
		say(cmp.String())
		out = append(out, cmp)
	}
	return out, nil
}

// compare sets the target Fit and the times and ratios to it.
func (c *Comparison) compare() {
	c.Target = c.Go.FinalValFit
	for _, t := range c.Torch {
		if !math.IsNaN(t.FinalValFit) {
			c.Target = math.Min(c.Target, t.FinalValFit)
		}
	}
	c.Target -= Tol
	c.GoTime = TimeToFit(c.Go.ClosedLoop, c.Target, 0)
	c.TorchTime, c.Ratio = nil, nil
	for _, t := range c.Torch {
		tt := TimeToFit(t.ClosedLoop, c.Target, 0)
		c.TorchTime = append(c.TorchTime, tt)
		c.Ratio = append(c.Ratio, tt/c.GoTime)
	}
}

// String is the run's one-line summary.
func (t TorchResult) String() string {
	if t.Error != "" {
		return fmt.Sprintf("%s: torch %s: failed: %s", t.Case, t.DType, t.Error)
	}
	return fmt.Sprintf("%s: torch %s (threads %d): final closed-loop val fit %.2f%%, training %.1f s (θ_G %.1f s, Adam %.1f s, eval %.1f s)",
		t.Case, t.DType, t.Threads, t.FinalValFit, t.Seconds, t.ThetaG, t.Adam, t.Eval)
}

// String is the comparison's one-line summary.
func (c Comparison) String() string {
	s := fmt.Sprintf("%s: both reach %.2f%%: Go at %.1f s", c.Case, c.Target, c.GoTime)
	for i, t := range c.Torch {
		s += fmt.Sprintf(", torch %s at %.1f s (%.2f× Go's time)", t.DType, c.TorchTime[i], c.Ratio[i])
	}
	return s
}

// MarkdownPeer writes the comparisons as a table, with the command that
// made them.
func MarkdownPeer(w io.Writer, cs []Comparison, command string) {
	fmt.Fprintf(w, "Command: `%s`\n\n", command)
	fmt.Fprintf(w, "| case | run | final closed-loop val Fit | time to the common Fit | ratio to Go | training time | closed-loop val Fit by iteration (s: %%) |\n|---|---|---|---|---|---|---|\n")
	curve := func(ps []Point, e string) string {
		var s []string
		for _, p := range ps {
			s = append(s, fmt.Sprintf("%.0f: %.2f", p.Seconds, p.ValFit))
		}
		if e != "" {
			s = append(s, "(error: "+e+")")
		}
		return strings.Join(s, ", ")
	}
	for _, c := range cs {
		fmt.Fprintf(w, "| %s | Go float64 | %.2f %% | %.1f s | 1 | %.1f s | %s |\n", c.Case, c.Go.FinalValFit, c.GoTime, c.Go.Seconds, curve(c.Go.ClosedLoop, c.Go.Error))
		for i, t := range c.Torch {
			fmt.Fprintf(w, "| %s | PyTorch %s %s | %.2f %% | %.1f s | %.2f× | %.1f s | %s |\n", c.Case, t.Torch, t.DType, t.FinalValFit, c.TorchTime[i], c.Ratio[i], t.Seconds, curve(t.ClosedLoop, t.Error))
		}
	}
	if len(cs) > 0 {
		fmt.Fprintf(w, "\nThe common Fit is the lower final Fit less %.1f points; the ratio is the peer's time to it over Go's.\n", Tol)
	}
}

// MarshalJSON writes what was never measured (NaN) as null.
func (t TorchResult) MarshalJSON() ([]byte, error) {
	type plain TorchResult
	return json.Marshal(struct {
		plain
		FinalValFit   *float64 `json:"final_val_fit"`
		InitialValFit *float64 `json:"initial_val_fit"`
	}{plain(t), num(t.FinalValFit), num(t.InitialValFit)})
}

// MarshalJSON writes what was never measured (NaN) as null.
func (c Comparison) MarshalJSON() ([]byte, error) {
	type plain Comparison
	nums := func(v []float64) []*float64 {
		out := make([]*float64, len(v))
		for i, x := range v {
			out[i] = num(x)
		}
		return out
	}
	return json.Marshal(struct {
		plain
		Target    *float64   `json:"target_fit"`
		GoTime    *float64   `json:"go_time"`
		TorchTime []*float64 `json:"torch_time"`
		Ratio     []*float64 `json:"ratio"`
	}{plain(c), num(c.Target), num(c.GoTime), nums(c.TorchTime), nums(c.Ratio)})
}

func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
