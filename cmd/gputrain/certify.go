package main

import (
	"fmt"
	"path/filepath"

	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// certifyJSON is the --json shape of certify:
// {"passive": bool, "branches": [{"min_re", "omega"}…], "linear": {…}}.
type certifyJSON struct {
	model.Certificate
	Model string `json:"model"`
	Mode  string `json:"mode"`
}

func runCertify(e *env, args []string) error {
	fs := newFlags("gputrain certify")
	var modelPath, plotDir, config string
	var jsonOut bool
	fs.StringVar(&modelPath, "model", "", "model file written by 'gputrain train'")
	fs.StringVar(&plotDir, "plot", "", "directory for the Re G_j(e^{iω}) plot (PNG and SVG)")
	fs.StringVar(&config, "config", "", "TOML or YAML file of flag values")
	fs.BoolVar(&jsonOut, "json", false, `print {"passive": bool, "branches": [{"min_re": x, "omega": w}, …]} on stdout`)
	spec := flagSpec{
		usage: "gputrain certify --model model.json [--json] [--plot DIR]",
		about: `The exact passivity certificate: for every branch FIR g_j (and the parallel linear FIR) the
certified minimum over ω ∈ [0, π] of Re G_j(e^{iω}) = Σ_k g_j(k) cos(kω), and where it occurs.
The model is passive (Theorem 2) when every minimum is ≥ 0. Exit 0 when passive, 1 when not.`,
		example: `gputrain certify --model model.json
gputrain certify --model model.json --json --plot plots`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if modelPath == "" {
		return usagef("--model FILE is required (a model.json written by 'gputrain train')")
	}
	if cm, _, ok, err := classFile(modelPath); err != nil {
		return err
	} else if ok {
		return certifyClass(e, modelPath, cm, jsonOut, plotDir)
	}
	// Inspect, not Load: a file whose passivity claim fails is what this
	// command exists to report on, with the same table and JSON.
	m, meta, err := model.Inspect(modelPath)
	if err != nil {
		return modelFileError(err)
	}
	cert, err := m.Certify()
	if err != nil {
		return failf("certificate: %v", err)
	}
	if plotDir != "" {
		if err := makePlotDir(plotDir); err != nil {
			return err
		}
		if err := realPartPlot(filepath.Join(plotDir, "re_g"), m, storedBound(meta)); err != nil {
			return err
		}
	}
	if jsonOut {
		if err := writeJSON(e.stdout, certifyJSON{Certificate: cert, Model: modelPath, Mode: meta.Mode}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "%s (trained with passivity %q)\n", modelPath, meta.Mode)
		fmt.Fprintf(e.stdout, "%-10s %14s %12s\n", "FIR", "min Re G", "at ω")
		for j, b := range cert.Branches {
			fmt.Fprintf(e.stdout, "%-10s %14.6g %12.6f\n", fmt.Sprintf("branch %d", j), b.MinRe, b.Omega)
		}
		if cert.Linear != nil {
			fmt.Fprintf(e.stdout, "%-10s %14.6g %12.6f\n", "linear", cert.Linear.MinRe, cert.Linear.Omega)
		}
		fmt.Fprintf(e.stdout, "certificate: %s\n", certText(cert))
	}
	if !cert.Passive {
		where := "see the table above"
		if jsonOut {
			where = "see min_re in the JSON"
		}
		if trainer.Passivity(meta.Mode) != trainer.PassivityNone {
			return failf("the model is NOT passive, though the file claims it (passivity %q): some FIR has Re G(e^{iω}) < 0 (%s); no other gputrain command will load it", meta.Mode, where)
		}
		return failf("the model is NOT passive: some FIR has Re G(e^{iω}) < 0 (%s)", where)
	}
	return nil
}
