package export

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes/baseline"
	"github.com/passivenfir/gputrain/model"
)

// RENMode is the passivity mode an exported passive REN carries: it is
// passive by its direct parameterization (Revay, Wang & Manchester 2024):
// H = XᵀX + εI + g gᵀ/(2M) ≻ 0 for every parameter value, which is the
// dissipation LMI of the passive class; the smallest eigenvalue of H,
// recomputed at export, is its certificate.
const RENMode = "ren-direct"

// loadREN reads a gputrain-model file of class ren, whose bytes are b, into
// src, and recomputes its certificate: the explicit model must exist (E
// nonsingular) and H must be positive definite.
func loadREN(path string, b []byte, allowUncertified bool, src *Source) (*Source, error) {
	cm, meta, err := decodeClass(path, b, baseline.REN)
	if err != nil {
		return nil, err
	}
	ren, ok := cm.(interface{ Unwrap() *baselines.PassiveREN })
	if !ok {
		return nil, fmt.Errorf("%w: %s: class ren decodes to %T", ErrUnsupported, path, cm)
	}
	src.REN = ren.Unwrap()
	src.Meta = model.Meta{Ts: meta.Ts, Mode: RENMode, Training: meta.Training}
	if src.RENMat, err = src.REN.Matrices(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	passive := renPassive(src.REN, src.RENMat)
	switch {
	case !passive && !allowUncertified:
		return nil, fmt.Errorf("%s: %w: H has smallest eigenvalue %.3g (export it anyway, marked NOT PASSIVE, with --allow-uncertified)", path, model.ErrNotPassive, src.RENMat.MinEigH)
	case !passive:
		src.Claim = Uncertified
	}
	return src, nil
}

// renPassive reports whether a REN's certificate holds: H positive
// definite, ν ≥ 0, ε > 0 and positive scales.
func renPassive(m *baselines.PassiveREN, e *baselines.RENMatrices) bool {
	return e.MinEigH > 0 && m.Nu >= 0 && m.Eps > 0 && m.UScale > 0 && m.YScale > 0
}

// renSummary is summary for a passive REN.
func (s *Source) renSummary(name string) []string {
	m, e := s.REN, s.RENMat
	l := s.summaryHead(fmt.Sprintf("%s: a %s, exported by gputrain %s. Do not edit: re-export.", name, s.kind(), toolVersion()))
	l = append(l,
		fmt.Sprintf("structure     : %d states, %d neurons (tanh, an equilibrium layer solved neuron by neuron: D11 is strictly lower);", m.States, m.Neurons),
		"                v = C1 x + D11 w + D12 u', w = tanh(v), y' = C2 x + D21 w + D22 u', x(t+1) = A x + B1 w + B2 u',",
		fmt.Sprintf("                u' = u / u_scale, y = y_scale y'; u_scale %v, y_scale %v; x(0) = 0", m.UScale, m.YScale),
	)
	if m.Biased {
		l = append(l,
			"biases        : v and x(t+1) add the biases b_v and b_x; y' is then the network's response to u' minus its",
			"                response to u' = 0 from the same x(0) = 0, simulated beside it (state x0): y' = R(u') - R(0)")
	}
	if m.Gated {
		l = append(l,
			"gates         : w_i = s_i tanh(v_i), s_i = 1 / (1 + exp(-(Bg_i + Ug_i u' + Wg_i x))) in (0, 1); a gated",
			"                neuron stays in the sector [0, 1] that the dissipation LMI's proof uses, so H > 0 still",
			"                makes the model passive from rest (not incrementally: the gates are scheduled by x and u')")
	}
	l = append(l, s.tsLine())
	switch s.Claim {
	case Certified:
		l = append(l, fmt.Sprintf("passivity     : mode %s (direct parameterization of the passive REN class, nu = %g, eps = %g);", RENMode, m.Nu, m.Eps),
			"                CERTIFIED PASSIVE: the matrix H of the dissipation LMI is positive definite, so the network is",
			"                incrementally passive, <du, dy> >= nu |du|^2 (whatever its biases; gated: passive, not incrementally),",
			"                and the model from rest passive, <u, y> >= nu |u|^2 (without biases y = R(u) with R(0) = 0; with",
			"                them y = R(u) - R(0))")
	default:
		l = append(l, fmt.Sprintf("passivity     : mode %s; NOT PASSIVE (see above)", s.Meta.Mode))
	}
	l = append(l, fmt.Sprintf("certificate   : smallest eigenvalue of H = %.17g (> 0), recomputed from the parameters at export", e.MinEigH))
	return l
}

// renC is C for a passive REN: the computation of PassiveREN.Simulate,
// sums in the same order, constants written exactly.
func renC(s *Source, name string) ([]File, error) {
	P, U := name, strings.ToUpper(name)
	lines := s.summary(name)
	lines = append(lines, cUse(P,
		P+"_step returns y(t) for u(t): the model has direct feedthrough (D22 > 0).",
		P+"_reset returns to rest (x = 0; the next sample is t = 0).")...)

	var h, c bytes.Buffer
	guard := cHeaderStart(&h, lines, U)
	s.defineCommon(cDefiner(&h, U), U)
	cComment(&c, lines)
	fmt.Fprintf(&c, "#include \"%s.h\"\n\n#include <math.h>\n\n", name)
	renMemberC(&h, &c, s.REN, s.RENMat, P, U, "")
	fmt.Fprintf(&c, "\nvoid %s_init(%s_state *s)\n{\n\t%s_reset(s);\n}\n", P, P, P)
	cAPI(&h, P, guard)
	return []File{{name + ".h", h.Bytes()}, {name + ".c", c.Bytes()}}, nil
}

// renMemberC writes one REN under the prefix P (U in capitals): its sizes,
// scales, certificate and state type to h; its constants and its reset and
// step functions to c, declared with storage ("" or "static ").
func renMemberC(h, c *bytes.Buffer, m *baselines.PassiveREN, e *baselines.RENMatrices, P, U, storage string) {
	nx, nv := e.States, e.Neurons
	def := cDefiner(h, U)
	def("STATES", nx, "n_x, the REN's state")
	def("NEURONS", nv, "n_v, its equilibrium layer")
	def("U_SCALE", hexf(m.UScale), "u' = u / U_SCALE")
	def("Y_SCALE", hexf(m.YScale), "y = Y_SCALE y'")
	def("CERT_MIN_EIG_H", hexf(e.MinEigH), fmt.Sprintf("smallest eigenvalue of H, %.6g > 0", e.MinEigH))
	biased := m.Biased
	if biased {
		fmt.Fprintf(h, "\n/* The state of one running instance: the REN's state x and that of its\n   zero-input response x0, nothing else. */\ntypedef struct {\n\tdouble x[%d];\n\tdouble x0[%d];\n} %s_state;\n\n", nx, nx, P)
	} else {
		fmt.Fprintf(h, "\n/* The state of one running instance: the REN's state, nothing else. */\ntypedef struct {\n\tdouble x[%d];\n} %s_state;\n\n", nx, P)
	}

	cArray(c, true, P+"_A", e.A, fmt.Sprintf("A, %d x %d row-major", nx, nx))
	cArray(c, true, P+"_B1", e.B1, fmt.Sprintf("B1, %d x %d row-major", nx, nv))
	cArray(c, true, P+"_B2", e.B2, "B2")
	cArray(c, true, P+"_C1", e.C1, fmt.Sprintf("C1, %d x %d row-major", nv, nx))
	cArray(c, true, P+"_D11", e.D11, fmt.Sprintf("D11, %d x %d row-major, strictly lower triangular", nv, nv))
	cArray(c, true, P+"_D12", e.D12, "D12")
	cArray(c, true, P+"_C2", e.C2, "C2")
	cArray(c, true, P+"_D21", e.D21, "D21")
	if biased {
		cArray(c, true, P+"_BX", e.Bx, "b_x, the bias of x(t+1)")
		cArray(c, true, P+"_BV", e.Bv, "b_v, the bias of v")
	}
	gated := m.Gated
	if gated {
		cArray(c, true, P+"_WG", e.Wg, fmt.Sprintf("W_g, the gates' state weights, %d x %d row-major", nv, nx))
		cArray(c, true, P+"_UG", e.Ug, "u_g, the gates' input weights")
		cArray(c, true, P+"_BG", e.Bg, "b_g, the gates' biases")
	}
	fmt.Fprintf(c, "static const double %s_D22 = %s;\n\n", P, hexf(e.D22))
	resetX0 := ""
	if biased {
		resetX0 = "\t\ts->x0[i] = 0.0;\n"
	}
	fmt.Fprintf(c, "%svoid %s_reset(%s_state *s)\n{\n\tint i;\n\tfor (i = 0; i < %d; i++) {\n\t\ts->x[i] = 0.0;\n%s\t}\n}\n\n", storage, P, P, nx, resetX0)
	bv, bx := "", ""
	if biased {
		bv, bx = fmt.Sprintf(" + %s_BV[i]", P), fmt.Sprintf(" + %s_BX[i]", P)
	}
	c.WriteString("/* One step of the network from state x on scaled input us: returns y'\n   and writes x(t+1) to x (the sums in PassiveREN.Simulate's order). */\n")
	fmt.Fprintf(c, "static double %s_net(double *x, double us)\n{\n\tdouble w[%d], xn[%d];\n\tdouble y, a, b;\n\tint i, j;\n\n", P, nv, nx)
	c.WriteString("\t/* the equilibrium layer, neuron by neuron */\n")
	fmt.Fprintf(c, "\tfor (i = 0; i < %d; i++) {\n\t\ta = 0.0;\n\t\tfor (j = 0; j < %d; j++)\n\t\t\ta += %s_C1[i * %d + j] * x[j];\n", nv, nx, P, nx)
	fmt.Fprintf(c, "\t\tb = 0.0;\n\t\tfor (j = 0; j < i; j++)\n\t\t\tb += %s_D11[i * %d + j] * w[j];\n\t\tw[i] = tanh(%s_D12[i] * us + a + b%s);\n", P, nv, P, bv)
	if gated {
		fmt.Fprintf(c, "\t\ta = 0.0;\n\t\tfor (j = 0; j < %d; j++)\n\t\t\ta += %s_WG[i * %d + j] * x[j];\n\t\tw[i] *= 1.0 / (1.0 + exp(-(%s_BG[i] + %s_UG[i] * us + a)));\n", nx, P, nx, P, P)
	}
	c.WriteString("\t}\n")
	fmt.Fprintf(c, "\ta = 0.0;\n\tfor (j = 0; j < %d; j++)\n\t\ta += %s_C2[j] * x[j];\n\tb = 0.0;\n\tfor (j = 0; j < %d; j++)\n\t\tb += %s_D21[j] * w[j];\n\ty = %s_D22 * us + a + b;\n", nx, P, nv, P, P)
	fmt.Fprintf(c, "\tfor (i = 0; i < %d; i++) {\n\t\ta = 0.0;\n\t\tfor (j = 0; j < %d; j++)\n\t\t\ta += %s_A[i * %d + j] * x[j];\n", nx, nx, P, nx)
	fmt.Fprintf(c, "\t\tb = 0.0;\n\t\tfor (j = 0; j < %d; j++)\n\t\t\tb += %s_B1[i * %d + j] * w[j];\n\t\txn[i] = %s_B2[i] * us + a + b%s;\n\t}\n", nv, P, nv, P, bx)
	fmt.Fprintf(c, "\tfor (i = 0; i < %d; i++)\n\t\tx[i] = xn[i];\n\treturn y;\n}\n\n", nx)
	fmt.Fprintf(c, "%sdouble %s_step(%s_state *s, double u)\n{\n\tdouble y = %s_net(s->x, u / %s_U_SCALE);\n\n", storage, P, P, P, U)
	if biased {
		fmt.Fprintf(c, "\ty -= %s_net(s->x0, 0.0); /* minus the zero-input response */\n", P)
	}
	fmt.Fprintf(c, "\treturn y * %s_Y_SCALE;\n}\n", U)
}
