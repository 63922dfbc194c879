package main

import (
	"context"
	"fmt"
	"os"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// classFile loads a model file of a class other than the NFIR's through the
// registry (ok true). A gputrain-nfir file, and a file that cannot be read
// or parsed at all, give ok false: the NFIR path reads and reports those,
// with its own messages.
func classFile(path string) (m classes.Model, meta classes.Meta, ok bool, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, meta, false, nil
	}
	format, err := classes.FormatOf(b)
	if err != nil || format == model.Format {
		return nil, meta, false, nil
	}
	if m, meta, err = classes.Load(path); err != nil {
		return nil, meta, false, modelFileError(err)
	}
	return m, meta, true, nil
}

// loadSimulator loads a model file of any class and returns its free-run
// simulation and its training object.
func loadSimulator(path string) (func(ctx context.Context, u []float64) ([]float64, error), model.Meta, error) {
	cm, cmeta, ok, err := classFile(path)
	if err != nil {
		return nil, model.Meta{}, err
	}
	if ok {
		return func(ctx context.Context, u []float64) ([]float64, error) {
			return orInterrupt(ctx, func() ([]float64, error) { return cm.Simulate(u), nil })
		}, model.Meta{Ts: cmeta.Ts, Training: cmeta.Training}, nil
	}
	m, meta, err := loadModel(path)
	if err != nil {
		return nil, meta, err
	}
	return func(ctx context.Context, u []float64) ([]float64, error) {
		y, _, err := m.SimulateContext(ctx, u)
		return y, err
	}, meta, nil
}

// evalClass is trainer.Evaluate for a model of another class: it has no
// open loop (it sees u only), so its open-loop Fit is its closed-loop one,
// as for a feed-forward NFIR.
func evalClass(m classes.Model, d *data.Dataset, skip int) (trainer.Eval, error) {
	s, err := classes.Evaluate(m, d, skip, 0)
	ev := trainer.Eval{ClosedLoop: s, OpenLoop: s}
	if err == nil {
		n := classNRMSE(m, d, skip)
		ev.NRMSE.ClosedLoop, ev.NRMSE.OpenLoop = n, n
	}
	return ev, err
}

// classCertifyJSON is the --json shape of certify for a model of another
// class: {"passive": bool, "class": …, "reason": …, "model": …}.
type classCertifyJSON struct {
	Passive bool   `json:"passive"`
	Class   string `json:"class"`
	Reason  string `json:"reason"`
	Model   string `json:"model"`
}

// certifyClass is certify for a model of another class: its certificate,
// or why it has none (exit 1).
func certifyClass(e *env, path string, m classes.Model, jsonOut bool, plotDir string) error {
	if plotDir != "" {
		return usagef("--plot: a %s model has no FIRs whose Re G could be drawn; leave --plot out", m.Class())
	}
	c, err := m.Certify()
	if err != nil {
		return failf("certificate: %v", err)
	}
	if jsonOut {
		if err := writeJSON(e.stdout, classCertifyJSON{Passive: c.Passive, Class: m.Class(), Reason: c.Reason, Model: path}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "%s (class %s)\ncertificate: %s\n", path, m.Class(), passiveText(c))
	}
	if !c.Passive {
		return failf("the model has no passivity certificate: %s", c.Reason)
	}
	return nil
}
