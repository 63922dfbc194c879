package export

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/convex"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
)

// LoopMode is the passivity mode an exported loop carries: it is passive
// by parameterization (every FIR's taps are the half autocorrelation of
// free factors, loop.Taps), and the certificate of every FIR, recomputed at
// export, proves it.
const LoopMode = "factored"

// FIRCert is the certificate of one FIR, or one first-order section, of a
// loop: a rigorous lower bound of min Re G(e^{iω}) and the ω where it
// occurs (normalized units; the loop's scales are positive, so the sign is
// that of the filter in data units). A section's is loop.SectionMinRe's,
// and it passes when its pole is inside the unit circle and its gain ≥ 0.
type FIRCert struct {
	Name string // "H1 branch 0", …, "H1 linear", "H1 section 0", …, "H2 branch 0", …, "H2 linear"
	model.BranchCert
}

// decodeClass decodes the gputrain-model file path, whose bytes are b, as a
// model of class c, checking its params and its version.
func decodeClass(path string, b []byte, c classes.Class) (classes.Model, classes.Meta, error) {
	class, params, meta, err := classes.DecodeEnvelope(b)
	if err != nil {
		return nil, meta, fmt.Errorf("%s: %w", path, err)
	}
	if class != c.Name() { // Load checked it; the envelope decoder agrees
		return nil, meta, fmt.Errorf("%w: %s: class %q is not %s", ErrUnsupported, path, class, c.Name())
	}
	cm, err := c.DecodeParams(params)
	if err != nil {
		return nil, meta, fmt.Errorf("%s: params.%w", path, err)
	}
	if err := classes.CheckVersion(cm, meta); err != nil {
		return nil, meta, fmt.Errorf("%s: %w", path, err)
	}
	return cm, meta, nil
}

// loadLoop reads a gputrain-model file of class loop, whose bytes are b,
// into src.
func loadLoop(path string, b []byte, allowUncertified bool, src *Source) (*Source, error) {
	cm, meta, err := decodeClass(path, b, loopclass.Class)
	if err != nil {
		return nil, err
	}
	src.Loop = cm.(*loopclass.Model).Mean
	src.Meta = model.Meta{Ts: meta.Ts, Mode: LoopMode, Training: meta.Training}
	for i, m := range src.Loop {
		at := "params"
		if len(src.Loop) > 1 {
			at = fmt.Sprintf("params.members[%d]", i)
		}
		if err := m.Check(); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, at, err)
		}
	}
	passive, err := src.certifyLoop()
	if err != nil {
		return nil, err
	}
	switch {
	case !passive && !allowUncertified:
		return nil, fmt.Errorf("%s: %w: a FIR of the loop fails it (export it anyway, marked NOT PASSIVE, with --allow-uncertified)", path, model.ErrNotPassive)
	case !passive:
		src.Claim = Uncertified
	}
	return src, nil
}

// certifyLoop fills LoopCert from the loops' taps and reports whether every
// FIR passes.
func (s *Source) certifyLoop() (bool, error) {
	s.LoopCert = nil
	passive := true
	for i, m := range s.Loop {
		prefix := ""
		if len(s.Loop) > 1 {
			prefix = fmt.Sprintf("loop %d ", i)
		}
		t := m.FIRTaps()
		add := func(name string, g []float64) error {
			c, err := convex.Certify(g)
			if err != nil {
				return fmt.Errorf("export: certify %s: %w", name, err)
			}
			s.LoopCert = append(s.LoopCert, FIRCert{name, model.BranchCert{MinRe: c.MinRe, Omega: c.Omega}})
			passive = passive && c.Passive
			return nil
		}
		for _, h := range []struct {
			name         string
			g, l         []float64
			B, T         int
			poles, gains []float64
		}{{"H1", t.G1, t.L1, m.B1, m.T1, t.Poles, t.Gains}, {"H2", t.G2, t.L2, m.B2, m.T2, nil, nil}} {
			for j := 0; j < h.B; j++ {
				if err := add(fmt.Sprintf("%s%s branch %d", prefix, h.name, j), h.g[j*h.T:(j+1)*h.T]); err != nil {
					return false, err
				}
			}
			if len(h.l) > 0 {
				if err := add(prefix+h.name+" linear", h.l); err != nil {
					return false, err
				}
			}
			for k, a := range h.poles {
				b := h.gains[k]
				re, om := loop.SectionMinRe(a, b)
				s.LoopCert = append(s.LoopCert, FIRCert{fmt.Sprintf("%s%s section %d", prefix, h.name, k), model.BranchCert{MinRe: re, Omega: om}})
				passive = passive && math.Abs(a) < 1 && b >= 0
			}
		}
	}
	return passive, nil
}

// kind names the operator in the artifacts' prose.
func (s *Source) kind() string {
	if s.Members != nil {
		return s.meanKind()
	}
	if s.REN != nil {
		return "passive recurrent equilibrium network (REN)"
	}
	if s.Loop.Weighted() {
		return fmt.Sprintf("weighted mean of %d passive feedback loops of two NFIRs, y = (1/%d) sum_i c_i H1_i(u - H2_i(y_i))", len(s.Loop), s.Loop.Total())
	}
	if len(s.Loop) > 1 {
		return fmt.Sprintf("mean of %d passive feedback loops of two NFIRs, y = (1/%d) sum_i H1_i(u - H2_i(y_i))", len(s.Loop), len(s.Loop))
	}
	if s.Loop != nil {
		return "passive feedback loop of two NFIRs, y = H1(u - H2(y))"
	}
	return "lifted FIR (NFIR) model"
}

// loopSummary is summary for a loop.
func (s *Source) loopSummary(name string) []string {
	l := s.summaryHead(fmt.Sprintf("%s: a %s, exported by gputrain %s. Do not edit: re-export.", name, s.kind(), toolVersion()))
	for i, m := range s.Loop {
		head := "structure     : loop"
		if len(s.Loop) > 1 {
			head = fmt.Sprintf("loop %d        : loop", i)
		}
		l = append(l,
			fmt.Sprintf("%s; lifting network sees R1 = %d u and R2 = %d past y samples%s%s, hidden %v;", head, m.R1, m.R2, statesNote(m.Model), recNote(m.Model), m.Hidden),
			fmt.Sprintf("                H1 (e -> y): %d branches x %d taps, linear taps %d%s; H2 (y -> z): %d branches x %d taps, linear taps %d;", m.B1, m.T1, m.L1, sectionsNote(m.Model), m.B2, m.T2, m.L2),
			fmt.Sprintf("                u_scale %v, y_scale %v", m.SU, m.SY),
		)
	}
	if len(s.Loop) > 1 && !s.Loop.Weighted() {
		l = append(l, fmt.Sprintf("                y = (y_0 + ... + y_%d) / %d: the loops run side by side on the same u", len(s.Loop)-1, len(s.Loop)))
	} else if s.Loop.Weighted() {
		l = append(l, fmt.Sprintf("                y = (%s) / %d: the loops run side by side on the same u, loop i counted c_i times", weightedSum(s.Loop), s.Loop.Total()))
	}
	l = append(l, s.tsLine())
	switch s.Claim {
	case Certified:
		l = append(l, "passivity     : mode "+LoopMode+" (every FIR's taps are the half autocorrelation of free factors);",
			"                CERTIFIED PASSIVE: every FIR of H1 and H2 has Re G(e^{iw}) >= 0 at every w, so H1 and H2",
			"                are passive and so is their feedback loop (the passivity theorem)")
		if s.hasSections() {
			l = append(l, "                (a first-order section s(t) = a s(t-1) + b e(t) of H1: |a| < 1 and b >= 0, so that",
				"                Re S(e^{iw}) >= b/(1 + |a|) >= 0 at every w, its bound below)")
		}
		if len(s.Loop) > 1 {
			if s.Loop.Weighted() {
				l = append(l, "                and so is the weighted mean of the loops (a parallel interconnection, loop i scaled by c_i / sum c)")
			} else {
				l = append(l, "                and so is the mean of the loops (a parallel interconnection, scaled by 1/n)")
			}
		}
	default:
		l = append(l, fmt.Sprintf("passivity     : mode %s; NOT PASSIVE (see above)", s.Meta.Mode))
	}
	l = append(l, "certificate   : "+CertMethod+" (taps in the loop's normalized units)")
	for _, c := range s.LoopCert {
		l = append(l, fmt.Sprintf("  %-12s: min Re G >= %.17g at w = %.17g rad/sample", c.Name, c.MinRe, c.Omega))
	}
	return l
}

// loopC is C for a loop, or a mean of loops: the computation of
// loop.Stepper, sums in the same order, constants written exactly. A mean's
// members are written side by side under NAME_m0, NAME_m1, …, and NAME_step
// sums their outputs in order and divides by their number, as
// loop.Mean.Simulate does.
func loopC(s *Source, name string) ([]File, error) {
	for _, m := range s.Loop {
		if err := m.Check(); err != nil {
			return nil, err
		}
	}
	P, U := name, strings.ToUpper(name)
	n := len(s.Loop)
	lines := s.summary(name)
	middle := []string{
		P + "_step returns y(t) for u(t): the loop has direct feedthrough (y(t) depends on u(t)).",
		"Each step solves the loop's algebraic equation in closed form, as loop.Model.Simulate does: in",
		"normalized units u' = u/u_scale, with gains n(t) from the lifting network on u'(t-R1+1..t) and",
		"y'(t-R2..t-1), H1's output is a1 e(t) + r1 and H2's is a2 y'(t) + r2, where a = sum_j n_j(t)^2 g_j(0)",
		"+ lin(0) >= 0 and r holds every term of an earlier sample, so y'(t) = (a1 (u'(t) - r2) + r1) / (1 + a1 a2),",
		"e(t) = u'(t) - a2 y'(t) - r2, and y(t) = y_scale y'(t).",
	}
	if n > 1 {
		if s.Loop.Weighted() {
			middle = append(middle, fmt.Sprintf("The %d loops run side by side on the same u (%s_m0, ..., %s_m%d); %s_step returns their weighted mean, %s_m<i>'s output counted c_i times: y = (%s) / %d.", n, P, P, n-1, P, P, weightedSum(s.Loop), s.Loop.Total()))
		} else {
			middle = append(middle, fmt.Sprintf("The %d loops run side by side on the same u (%s_m0, ..., %s_m%d); %s_step returns their mean.", n, P, P, n-1, P))
		}
	}
	lines = append(lines, cUse(P, append(middle, P+"_reset returns to rest (all signals zero before the next sample, which is t = 0).")...)...)

	h := new(bytes.Buffer)
	guard := cHeaderStart(h, lines, U)
	def := cDefiner(h, U)
	s.defineCommon(def, U)
	nf := len(s.LoopCert)
	order := "H1's branches, H1's linear FIR, H2's branches, H2's linear FIR"
	if s.hasSections() {
		order = "H1's branches, H1's linear FIR, H1's first-order sections, H2's branches, H2's linear FIR"
	}
	if n > 1 {
		def("MEMBERS", n, "loops averaged")
		def("FIRS", nf, "FIRs certified, loop by loop: "+order)
	} else {
		def("FIRS", nf, "FIRs certified: "+order)
	}
	fmt.Fprintf(h, "/* per FIR, in the order of %s_FIRS: certified lower bound of min Re G and the w where it occurs */\n", U)
	fmt.Fprintf(h, "extern const double %s_cert_min_re[%d];\nextern const double %s_cert_omega[%d];\n", P, nf, P, nf)

	c := new(bytes.Buffer)
	cComment(c, lines)
	fmt.Fprintf(c, "#include \"%s.h\"\n\n#include <math.h>\n\n", name)
	mins, oms := make([]float64, nf), make([]float64, nf)
	for i, fc := range s.LoopCert {
		mins[i], oms[i] = fc.MinRe, fc.Omega
	}
	cArray(c, false, P+"_cert_min_re", mins, "")
	cArray(c, false, P+"_cert_omega", oms, "")

	if n == 1 {
		loopMemberC(h, c, s.Loop[0].Model, P, U, "")
		fmt.Fprintf(c, "void %s_init(%s_state *s)\n{\n\t%s_reset(s);\n}\n\n", P, P, P)
	} else {
		for i, m := range s.Loop {
			h.WriteString("\n")
			loopMemberC(h, c, m.Model, fmt.Sprintf("%s_m%d", P, i), fmt.Sprintf("%s_M%d", U, i), "static ")
		}
		counts := make([]int, n)
		for i, m := range s.Loop {
			counts[i] = m.Count
		}
		meanStepC(h, c, P, "loops", counts)
	}
	h.WriteString("\n")
	cAPI(h, P, guard)
	return []File{{name + ".h", h.Bytes()}, {name + ".c", c.Bytes()}}, nil
}

// weightedSum is "c_0 y_0 + y_1 + …" for the summary of a weighted mean.
func weightedSum(m loop.Mean) string {
	var b strings.Builder
	for i, l := range m {
		if i > 0 {
			b.WriteString(" + ")
		}
		if l.Count != 1 {
			fmt.Fprintf(&b, "%d ", l.Count)
		}
		fmt.Fprintf(&b, "y_%d", i)
	}
	return b.String()
}

// hasSections reports whether a loop of s has first-order sections.
func (s *Source) hasSections() bool {
	for _, m := range s.Loop {
		if m.P1 > 0 {
			return true
		}
	}
	return false
}

// sectionsNote is the sections of m in the summary's structure line.
func sectionsNote(m *loop.Model) string {
	if m.P1 == 0 {
		return ""
	}
	return fmt.Sprintf(", first-order sections %d", m.P1)
}

// statesNote is the slow states of m in the summary's structure line.
func statesNote(m *loop.Model) string {
	if m.S == 0 {
		return ""
	}
	return fmt.Sprintf(" and %d slow states of each", m.S)
}

// recNote is the recurrent lift of m in the summary's structure line.
func recNote(m *loop.Model) string {
	if m.Rec == 0 {
		return ""
	}
	return fmt.Sprintf(", a GRU state of %d units", m.Rec)
}

// cDefiner returns a writer of "#define U_KEY value /* comment */" lines.
func cDefiner(h *bytes.Buffer, U string) func(k string, v any, comment string) {
	return func(k string, v any, comment string) {
		if comment != "" {
			fmt.Fprintf(h, "#define %s_%-14s %v /* %s */\n", U, k, v, comment)
		} else {
			fmt.Fprintf(h, "#define %s_%-14s %v\n", U, k, v)
		}
	}
}

// loopMemberC writes one loop under the prefix P (U in capitals): its
// sizes and scales and its state type to h; its constants and its reset,
// init and step functions to c, declared with storage ("" or "static ").
func loopMemberC(h, c *bytes.Buffer, m *loop.Model, P, U, storage string) {
	tp := m.FIRTaps()
	F := m.Inputs()
	def := cDefiner(h, U)
	def("R1", m.R1, "u samples the lifting network sees")
	def("R2", m.R2, "past y samples the lifting network sees")
	def("B1", m.B1, "H1 (forward): lifted branches")
	def("T1", m.T1, "H1: taps per branch")
	def("L1", m.L1, "H1: taps of the parallel linear FIR")
	def("B2", m.B2, "H2 (feedback): lifted branches")
	def("T2", m.T2, "H2: taps per branch")
	def("L2", m.L2, "H2: taps of the parallel linear FIR")
	if m.P1 > 0 {
		def("P1", m.P1, "H1: first-order sections s_k(t) = a_k s_k(t-1) + b_k e(t)")
	}
	if m.S > 0 {
		def("S", m.S, "slow states of u' and of y' the lifting network sees")
	}
	if m.Rec > 0 {
		def("REC", m.Rec, "units of the GRU state (of u'(t) and y'(t-1)) the lifting network sees")
	}
	def("U_SCALE", hexf(m.SU), fmt.Sprintf("u' = u / u_scale, %.6g", m.SU))
	def("Y_SCALE", hexf(m.SY), fmt.Sprintf("y = y_scale y', %.6g", m.SY))
	h.WriteString("\n/* The state of one running instance: the loop's memory, nothing else. Rings are doubled:\n   each value is written at i and i + len, so lags 0 .. len-1 are one run from the head. */\ntypedef struct {\n")
	if m.S > 0 || m.Rec > 0 {
		fmt.Fprintf(h, "\tdouble feat[%d];   /* lifting network input: u'(t-R1+1..t), y'(t-R2..t-1), then the slow states x_u(t), x_y(t), then the GRU state h(t) */\n", F)
	} else {
		fmt.Fprintf(h, "\tdouble feat[%d];   /* lifting network input: u'(t-R1+1..t), then y'(t-R2..t-1) */\n", F)
	}
	if m.B1 > 0 {
		fmt.Fprintf(h, "\tdouble w1[%d];     /* H1 branch inputs n1_j(t-k) e(t-k): %d rows of %d */\n\tint h1;\n", 2*m.T1*m.B1, m.T1, m.B1)
	}
	if m.B2 > 0 {
		fmt.Fprintf(h, "\tdouble w2[%d];     /* H2 branch inputs n2_j(t-k) y'(t-k): %d rows of %d */\n\tint h2;\n", 2*m.T2*m.B2, m.T2, m.B2)
	}
	if m.L1 > 0 {
		fmt.Fprintf(h, "\tdouble e_hist[%d]; /* e(t-k), H1's input */\n\tint he;\n", 2*m.L1)
	}
	if m.L2 > 0 {
		fmt.Fprintf(h, "\tdouble y_hist[%d]; /* y'(t-k), H2's input */\n\tint hy;\n", 2*m.L2)
	}
	if m.P1 > 0 {
		fmt.Fprintf(h, "\tdouble sec[%d];    /* H1's sections' states s_k(t-1) */\n", m.P1)
	}
	h.WriteString("\tdouble y_prev;     /* y'(t-1) */\n")
	fmt.Fprintf(h, "} %s_state;\n\n", P)
	for l := range m.Lift.W {
		cArray(c, true, fmt.Sprintf("%s_w%d", P, l), m.Lift.W[l], fmt.Sprintf("layer %d weights, %d x %d row-major", l, m.Lift.Sizes[l+1], m.Lift.Sizes[l]))
		cArray(c, true, fmt.Sprintf("%s_b%d", P, l), m.Lift.B[l], fmt.Sprintf("layer %d biases", l))
	}
	for _, a := range []struct {
		name string
		v    []float64
		what string
	}{{"g1", tp.G1, "H1 branch taps, g1[j*T1 + k] = g1_j(k)"}, {"l1", tp.L1, "H1 linear taps"},
		{"g2", tp.G2, "H2 branch taps, g2[j*T2 + k] = g2_j(k)"}, {"l2", tp.L2, "H2 linear taps"}} {
		if len(a.v) > 0 {
			cArray(c, true, P+"_"+a.name, a.v, a.what+" (normalized units; from the factors, loop.Taps)")
		}
	}
	if m.S > 0 {
		sc, sk := m.StatePoles()
		cArray(c, true, P+"_xc", sc, "slow states' poles c_i = 1 - 1/tau_i, tau_i = max(4, L1/4) 4^i (loop.Structure.StatePoles)")
		cArray(c, true, P+"_xk", sk, "slow states' input gains k_i = sqrt(1 - c_i^2)")
	}
	if m.Rec > 0 {
		H := m.Rec
		cArray(c, true, P+"_rwi", m.RT[:6*H], "GRU state: input weights, 3 REC x 2 row-major (rows r, z, n; columns u'(t), y'(t-1))")
		cArray(c, true, P+"_rwh", m.RT[6*H:6*H+3*H*H], "GRU state: recurrent weights, 3 REC x REC row-major (r, z, n)")
		cArray(c, true, P+"_rb", m.RT[6*H+3*H*H:9*H+3*H*H], "GRU state: biases b_r, b_z, b_in")
		cArray(c, true, P+"_rbhn", m.RT[9*H+3*H*H:], "GRU state: b_hn, inside the reset gate")
	}
	if m.P1 > 0 {
		cArray(c, true, P+"_sa", tp.Poles, "H1 sections' poles a_k = (1 - 1e-6) tanh(alpha_k) (loop.Sections)")
		cArray(c, true, P+"_sb", tp.Gains, "H1 sections' gains b_k = beta_k^2 (1 - a_k) (normalized units)")
	}

	// reset
	fmt.Fprintf(c, "%svoid %s_reset(%s_state *s)\n{\n", storage, P, P)
	zero := func(arr string, n int, head string) {
		fmt.Fprintf(c, "\tfor (int i = 0; i < %d; i++)\n\t\ts->%s[i] = 0.0;\n", n, arr)
		if head != "" {
			fmt.Fprintf(c, "\ts->%s = 0;\n", head)
		}
	}
	zero("feat", F, "")
	if m.B1 > 0 {
		zero("w1", 2*m.T1*m.B1, "h1")
	}
	if m.B2 > 0 {
		zero("w2", 2*m.T2*m.B2, "h2")
	}
	if m.L1 > 0 {
		zero("e_hist", 2*m.L1, "he")
	}
	if m.L2 > 0 {
		zero("y_hist", 2*m.L2, "hy")
	}
	if m.P1 > 0 {
		zero("sec", m.P1, "")
	}
	c.WriteString("\ts->y_prev = 0.0;\n}\n\n")

	// step
	wmax := 0
	for _, v := range m.Lift.Sizes {
		wmax = max(wmax, v)
	}
	fmt.Fprintf(c, "%sdouble %s_step(%s_state *s, double u)\n{\n\tconst double up = u / %s;\n", storage, P, P, hexf(m.SU))
	fmt.Fprintf(c, "\tdouble n[%d];\n", m.B1+m.B2)
	L := len(m.Lift.W)
	switch {
	case L >= 3:
		fmt.Fprintf(c, "\tdouble ha[%d], hb[%d];\n", wmax, wmax)
	case L == 2:
		fmt.Fprintf(c, "\tdouble ha[%d];\n", wmax)
	}
	c.WriteString("\tdouble a1 = 0.0, r1 = 0.0, a2 = 0.0, r2 = 0.0, y, e;\n\n")
	c.WriteString("\t/* the lifting network's input, oldest first; zeros before t = 0 */\n")
	if m.R1 > 0 {
		fmt.Fprintf(c, "\tfor (int i = 0; i < %d; i++)\n\t\ts->feat[i] = s->feat[i + 1];\n\ts->feat[%d] = up;\n", m.R1-1, m.R1-1)
	}
	if m.R2 > 0 {
		e := m.R1 + m.R2 - 1
		fmt.Fprintf(c, "\tfor (int i = %d; i < %d; i++)\n\t\ts->feat[i] = s->feat[i + 1];\n\ts->feat[%d] = s->y_prev;\n", m.R1, e, e)
	}
	if m.S > 0 {
		c.WriteString("\t/* the slow states: x_u(t) = c x_u(t-1) + k u'(t), x_y(t) = c x_y(t-1) + k y'(t-1) */\n")
		o := m.R1 + m.R2
		fmt.Fprintf(c, "\tfor (int i = 0; i < %d; i++) {\n\t\ts->feat[%d + i] = %s_xc[i] * s->feat[%d + i] + %s_xk[i] * up;\n\t\ts->feat[%d + i] = %s_xc[i] * s->feat[%d + i] + %s_xk[i] * s->y_prev;\n\t}\n",
			m.S, o, P, o, P, o+m.S, P, o+m.S, P)
	}
	if m.Rec > 0 {
		H, o := m.Rec, m.R1+m.R2+2*m.S
		c.WriteString("\t/* the GRU state: r = sig(Wi_r x + Wh_r h + b_r), z likewise, n = tanh(Wi_n x + b_in + r (Wh_n h + b_hn)),\n\t   h(t) = (1 - z) n + z h(t-1), x = (u'(t), y'(t-1)) (internal/gru.Cell) */\n\t{\n")
		fmt.Fprintf(c, "\t\tdouble hp[%d];\n\t\tfor (int j = 0; j < %d; j++)\n\t\t\thp[j] = s->feat[%d + j];\n", H, H, o)
		fmt.Fprintf(c, "\t\tfor (int j = 0; j < %d; j++) {\n\t\t\tdouble dr = 0.0, dz = 0.0, dn = 0.0;\n\t\t\tfor (int k = 0; k < %d; k++) {\n", H, H)
		fmt.Fprintf(c, "\t\t\t\tdr += %s_rwh[j * %d + k] * hp[k];\n\t\t\t\tdz += %s_rwh[(%d + j) * %d + k] * hp[k];\n\t\t\t\tdn += %s_rwh[(%d + j) * %d + k] * hp[k];\n\t\t\t}\n", P, H, P, H, H, P, 2*H, H)
		fmt.Fprintf(c, "\t\t\tconst double r = 1.0 / (1.0 + exp(-((%s_rwi[2 * j] * up + %s_rwi[2 * j + 1] * s->y_prev) + %s_rb[j] + dr)));\n", P, P, P)
		fmt.Fprintf(c, "\t\t\tconst double z = 1.0 / (1.0 + exp(-((%s_rwi[2 * (%d + j)] * up + %s_rwi[2 * (%d + j) + 1] * s->y_prev) + %s_rb[%d + j] + dz)));\n", P, H, P, H, P, H)
		fmt.Fprintf(c, "\t\t\tconst double nc = tanh((%s_rwi[2 * (%d + j)] * up + %s_rwi[2 * (%d + j) + 1] * s->y_prev) + %s_rb[%d + j] + r * (dn + %s_rbhn[j]));\n", P, 2*H, P, 2*H, P, 2*H, P)
		fmt.Fprintf(c, "\t\t\ts->feat[%d + j] = (1.0 - z) * nc + z * hp[j];\n\t\t}\n\t}\n", o)
	}
	c.WriteString("\t/* the gains n(t): tanh on every layer, the output layer included */\n")
	in := "s->feat"
	for l := 0; l < L; l++ {
		out := "ha"
		if l%2 == 1 {
			out = "hb"
		}
		if l == L-1 {
			out = "n"
		}
		nIn, nOut := m.Lift.Sizes[l], m.Lift.Sizes[l+1]
		fmt.Fprintf(c, "\tfor (int i = 0; i < %d; i++) {\n\t\tdouble acc = %s_b%d[i];\n\t\tfor (int j = 0; j < %d; j++)\n\t\t\tacc += %s_w%d[i * %d + j] * %s[j];\n\t\t%s[i] = tanh(acc);\n\t}\n",
			nOut, P, l, nIn, P, l, nIn, in, out)
		in = out
	}
	c.WriteString("\t/* each NFIR's output at t is a x(t) + r: r holds the terms of earlier samples (zeros before t = 0) */\n")
	split := func(B, T, Ln int, ring, head, gname, lname, hist, hh, a, r, noff string) {
		if B > 0 {
			fmt.Fprintf(c, "\tif (--s->%s < 0)\n\t\ts->%s = %d;\n", head, head, T-1)
			fmt.Fprintf(c, "\tfor (int j = 0; j < %d; j++) {\n\t\tconst double *g = %s_%s + j * %d, *w = s->%s + s->%s * %d;\n\t\tconst double nj = n[%sj];\n\t\tdouble sum = 0.0;\n",
				B, P, gname, T, ring, head, B, noff)
			fmt.Fprintf(c, "\t\tfor (int k = 1; k < %d; k++)\n\t\t\tsum += g[k] * w[k * %d + j];\n\t\t%s += nj * nj * g[0];\n\t\t%s += nj * sum;\n\t}\n", T, B, a, r)
		}
		if Ln > 0 {
			fmt.Fprintf(c, "\tif (--s->%s < 0)\n\t\ts->%s = %d;\n\t%s += %s_%s[0];\n", hh, hh, Ln-1, a, P, lname)
			fmt.Fprintf(c, "\tfor (int k = 1; k < %d; k++)\n\t\t%s += %s_%s[k] * s->%s[s->%s + k];\n", Ln, r, P, lname, hist, hh)
		}
	}
	c.WriteString("\t/* H1: y' = a1 e + r1 */\n")
	split(m.B1, m.T1, m.L1, "w1", "h1", "g1", "l1", "e_hist", "he", "a1", "r1", "")
	if m.P1 > 0 {
		c.WriteString("\t/* H1's sections: b_k e(t) + a_k s_k(t-1) */\n")
		fmt.Fprintf(c, "\tfor (int k = 0; k < %d; k++) {\n\t\ta1 += %s_sb[k];\n\t\tr1 += %s_sa[k] * s->sec[k];\n\t}\n", m.P1, P, P)
	}
	c.WriteString("\t/* H2: z = a2 y' + r2 */\n")
	split(m.B2, m.T2, m.L2, "w2", "h2", "g2", "l2", "y_hist", "hy", "a2", "r2", fmt.Sprintf("%d + ", m.B1))
	c.WriteString("\t/* the loop, e = u' - z, solved for y' (a1, a2 >= 0: 1 + a1 a2 >= 1) */\n")
	c.WriteString("\ty = (a1 * (up - r2) + r1) / (1.0 + a1 * a2);\n\te = up - a2 * y - r2;\n")
	if m.P1 > 0 {
		fmt.Fprintf(c, "\tfor (int k = 0; k < %d; k++)\n\t\ts->sec[k] = %s_sa[k] * s->sec[k] + %s_sb[k] * e;\n", m.P1, P, P)
	}
	store := func(B, T int, ring, head, x, noff string) {
		if B > 0 {
			fmt.Fprintf(c, "\tfor (int j = 0; j < %d; j++)\n\t\ts->%s[s->%s * %d + j] = s->%s[(s->%s + %d) * %d + j] = n[%sj] * %s;\n", B, ring, head, B, ring, head, T, B, noff, x)
		}
	}
	store(m.B1, m.T1, "w1", "h1", "e", "")
	store(m.B2, m.T2, "w2", "h2", "y", fmt.Sprintf("%d + ", m.B1))
	if m.L1 > 0 {
		fmt.Fprintf(c, "\ts->e_hist[s->he] = s->e_hist[s->he + %d] = e;\n", m.L1)
	}
	if m.L2 > 0 {
		fmt.Fprintf(c, "\ts->y_hist[s->hy] = s->y_hist[s->hy + %d] = y;\n", m.L2)
	}
	fmt.Fprintf(c, "\ts->y_prev = y;\n\treturn y * %s;\n}\n", hexf(m.SY))
}

// errLoopSS is why a loop has no state-space export.
var errLoopSS = errors.New("a loop has no state-space realization: its lifts' gains depend on the signals, so it is not linear; export it with --format c or fmu")
