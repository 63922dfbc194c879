package export

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// File is one generated artifact: a name relative to the output directory
// and its content.
type File struct {
	Name string
	Data []byte
}

// hexf writes v as a C99 hexadecimal floating constant, which the compiler
// reads back to the same double, bit for bit (a decimal constant would
// need 17 digits and a correctly rounding compiler).
func hexf(v float64) string {
	if v == 0 && math.Signbit(v) {
		return "-0x0p+00"
	}
	return strconv.FormatFloat(v, 'x', -1, 64)
}

// cArray writes a static const double array, four constants a line.
func cArray(b *bytes.Buffer, static bool, name string, v []float64, comment string) {
	if comment != "" {
		fmt.Fprintf(b, "/* %s */\n", comment)
	}
	if static {
		b.WriteString("static ")
	}
	fmt.Fprintf(b, "const double %s[%d] = {", name, len(v))
	for i, x := range v {
		if i%4 == 0 {
			b.WriteString("\n\t")
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(hexf(x))
		if i+1 < len(v) {
			b.WriteByte(',')
		}
	}
	b.WriteString("\n};\n\n")
}

// summary is the comment block every artifact begins with: what the model
// is, where it came from, and its certificate.
func (s *Source) summary(name string) []string {
	if s.Members != nil {
		return s.meanSummary(name)
	}
	if s.REN != nil {
		return s.renSummary(name)
	}
	if s.Loop != nil {
		return s.loopSummary(name)
	}
	m := s.Model
	l := s.summaryHead(fmt.Sprintf("%s: a lifted FIR (NFIR) model exported by gputrain %s. Do not edit: re-export.", name, toolVersion()))
	l = append(l,
		fmt.Sprintf("structure     : %d branches x %d taps, R1 = %d, R2 = %d, hidden %v, feedback %v, linear taps %d, hold_start %v",
			m.Branches, m.Taps, m.R1, m.R2, m.Hidden, m.Feedback, m.LinearTaps, m.HoldStart),
		s.tsLine(),
	)
	switch s.Claim {
	case Certified:
		l = append(l, fmt.Sprintf("passivity     : mode %s; CERTIFIED PASSIVE: every FIR has Re G(e^{iw}) >= 0 at every w,", s.Meta.Mode),
			"                so the operator is passive, open and closed loop (the paper's Theorems 2 and 3)")
	default:
		l = append(l, fmt.Sprintf("passivity     : mode %s; NOT PASSIVE (see above)", s.Meta.Mode))
	}
	l = append(l, "certificate   : "+CertMethod)
	for j, c := range s.Cert.Branches {
		l = append(l, fmt.Sprintf("  branch %3d  : min Re G >= %.17g at w = %.17g rad/sample", j, c.MinRe, c.Omega))
	}
	if c := s.Cert.Linear; c != nil {
		l = append(l, fmt.Sprintf("  linear FIR  : min Re G >= %.17g at w = %.17g rad/sample", c.MinRe, c.Omega))
	}
	return l
}

// summaryHead is the start of every summary: the marker of an uncertified
// model, the title line, and the model file and its hash.
func (s *Source) summaryHead(title string) []string {
	var l []string
	if mk := s.Marker(); mk != "" {
		l = append(l, "*** "+mk+" ***", "")
	}
	return append(l, title, "", "model file    : "+s.File, "model SHA-256 : "+s.SHA256)
}

// tsLine is the summary's sampling-time line.
func (s *Source) tsLine() string {
	if s.Meta.Ts > 0 {
		return fmt.Sprintf("sampling time : %g s", s.Meta.Ts)
	}
	return "sampling time : unknown (not in the model file)"
}

// cComment writes lines as a C block comment, keeping the content ASCII
// safe for any toolchain (a "*/" cannot occur: the lines are generated).
func cComment(b *bytes.Buffer, lines []string) {
	b.WriteString("/*\n")
	for _, l := range lines {
		if l == "" {
			b.WriteString(" *\n")
			continue
		}
		b.WriteString(" * " + l + "\n")
	}
	b.WriteString(" */\n")
}

// cString quotes s as a C string literal (the strings here are ASCII).
func cString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range []byte(s) {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func b01(v bool) int {
	if v {
		return 1
	}
	return 0
}

// C returns the header NAME.h and source NAME.c of a dependency-free C99
// implementation of the model's closed-loop operator: the same computation
// as model.Stepper, sums in the same order, constants written exactly.
func C(s *Source, name string) ([]File, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if s.Members != nil {
		return meanC(s, name)
	}
	if s.REN != nil {
		return renC(s, name)
	}
	if s.Loop != nil {
		return loopC(s, name)
	}
	m := s.Model
	if err := m.Check(); err != nil {
		return nil, err
	}
	P := name
	U := strings.ToUpper(name)
	mN, mG, mL := m.Branches, m.Taps, m.LinearTaps
	qw := 0
	if m.Feedback && mN > 0 {
		qw = m.R2
	}
	uw := 0
	if mN > 0 {
		uw = m.R1
	}
	ulen := max(mL, 1)
	if mN > 0 {
		ulen = max(ulen, mG)
	}
	lines := s.summary(name)
	lines = append(lines, cUse(P,
		P+"_step returns y(t) for u(t): the model has direct feedthrough (y(t) depends on u(t)).",
		"A feedback model feeds back its own output, q(t) = y(t-1), q(0) = 0, as gputrain simulate does;",
		P+"_reset returns to rest (all signals zero before the next sample, which is t = 0).")...)

	var h bytes.Buffer
	guard := cHeaderStart(&h, lines, U)
	def := cDefiner(&h, U)
	def("BRANCHES", mN, "m_N, lifted FIR branches")
	def("TAPS", mG, "m_G, taps per branch")
	def("R1", m.R1, "u samples the lifting network sees")
	def("R2", m.R2, "q samples the lifting network sees (feedback models)")
	def("FEEDBACK", b01(m.Feedback), "1: q(t) = y(t-1) is fed back")
	def("HOLD_START", b01(m.HoldStart), "1: the u-window before t = 0 holds u(0)")
	def("LINEAR_TAPS", mL, "taps of the parallel linear FIR")
	s.defineCommon(def, U)
	if mN > 0 {
		fmt.Fprintf(&h, "/* per branch j: certified lower bound of min Re G_j and the w where it occurs */\n")
		fmt.Fprintf(&h, "extern const double %s_cert_min_re[%d];\nextern const double %s_cert_omega[%d];\n", P, mN, P, mN)
	}
	if c := s.Cert.Linear; c != nil {
		def("CERT_LIN_MIN_RE", hexf(c.MinRe), fmt.Sprintf("linear FIR: min Re G >= %.6g", c.MinRe))
		def("CERT_LIN_OMEGA", hexf(c.Omega), fmt.Sprintf("at w = %.6g", c.Omega))
	}
	h.WriteString("\n/* The state of one running instance: the model's memory, nothing else. */\ntypedef struct {\n")
	if mN > 0 {
		fmt.Fprintf(&h, "\tdouble feat[%d];   /* lifting network input: scaled u window, then scaled q window */\n", max(uw+qw, 1))
		fmt.Fprintf(&h, "\tdouble n_hist[%d]; /* gains n(t-k), a doubled ring of %d rows of %d */\n", 2*mG*mN, mG, mN)
		h.WriteString("\tint n_head;\n")
	}
	fmt.Fprintf(&h, "\tdouble u_hist[%d]; /* inputs u(t-k), a doubled ring of %d */\n", 2*ulen, ulen)
	h.WriteString("\tint u_head;\n\tint started;       /* 0 until the first step after a reset */\n\tdouble y_prev;     /* y(t-1), the next q */\n")
	fmt.Fprintf(&h, "} %s_state;\n\n", P)
	cAPI(&h, P, guard)

	var c bytes.Buffer
	cComment(&c, lines)
	fmt.Fprintf(&c, "#include \"%s.h\"\n\n#include <math.h>\n\n", name)
	if mN > 0 {
		mins := make([]float64, mN)
		oms := make([]float64, mN)
		for j, bc := range s.Cert.Branches {
			mins[j], oms[j] = bc.MinRe, bc.Omega
		}
		cArray(&c, false, P+"_cert_min_re", mins, "")
		cArray(&c, false, P+"_cert_omega", oms, "")
		// Transposed so that the inner loop sweeps the branches at one lag
		// (see model.Stepper): gT[k*m_N + j] = g_j(k).
		gT := make([]float64, mG*mN)
		for j := 0; j < mN; j++ {
			for k := 0; k < mG; k++ {
				gT[k*mN+j] = m.G[j*mG+k]
			}
		}
		cArray(&c, true, P+"_g", gT, "branch taps, transposed: g[k*BRANCHES + j] = g_j(k)")
		for l := range m.Lift.W {
			cArray(&c, true, fmt.Sprintf("%s_w%d", P, l), m.Lift.W[l], fmt.Sprintf("layer %d weights, %d x %d row-major", l, m.Lift.Sizes[l+1], m.Lift.Sizes[l]))
			cArray(&c, true, fmt.Sprintf("%s_b%d", P, l), m.Lift.B[l], fmt.Sprintf("layer %d biases", l))
		}
	}
	if mL > 0 {
		cArray(&c, true, P+"_lin", m.Lin, "parallel linear FIR taps lin(k)")
	}
	us, qs := m.UScaler, m.QScaler
	scaleU := func(x string) string {
		return fmt.Sprintf("((%s) / %s - %s) / %s", x, hexf(us.Scale), hexf(us.Mean), hexf(us.Std))
	}
	scaleQ := func(x string) string {
		return fmt.Sprintf("((%s) / %s - %s) / %s", x, hexf(qs.Scale), hexf(qs.Mean), hexf(qs.Std))
	}

	// reset
	fmt.Fprintf(&c, "void %s_reset(%s_state *s)\n{\n\tint i;\n", P, P)
	if mN > 0 {
		fmt.Fprintf(&c, "\tfor (i = 0; i < %d; i++)\n\t\ts->n_hist[i] = 0.0;\n\ts->n_head = 0;\n", 2*mG*mN)
		if uw > 0 {
			c.WriteString("\t/* before t = 0 the windows hold raw zeros, seen through the scalers */\n")
			fmt.Fprintf(&c, "\tfor (i = 0; i < %d; i++)\n\t\ts->feat[i] = %s;\n", uw, scaleU("0.0"))
		}
		if qw > 0 {
			fmt.Fprintf(&c, "\tfor (i = %d; i < %d; i++)\n\t\ts->feat[i] = %s;\n", uw, uw+qw, scaleQ("0.0"))
		}
		if uw+qw == 0 {
			c.WriteString("\ts->feat[0] = 0.0;\n")
		}
	}
	fmt.Fprintf(&c, "\tfor (i = 0; i < %d; i++)\n\t\ts->u_hist[i] = 0.0;\n", 2*ulen)
	c.WriteString("\ts->u_head = 0;\n\ts->started = 0;\n\ts->y_prev = 0.0;\n}\n\n")
	fmt.Fprintf(&c, "void %s_init(%s_state *s)\n{\n\t%s_reset(s);\n}\n\n", P, P, P)

	// step
	fmt.Fprintf(&c, "double %s_step(%s_state *s, double u)\n{\n\tdouble y = 0.0;\n\tconst double *uw;\n\tint k;\n\n", P, P)
	c.WriteString("\t/* The rings are doubled: each value is written at i and i + len, so that lags\n\t   0 .. len-1 of the newest sample are one contiguous run from the head. */\n")
	fmt.Fprintf(&c, "\tif (--s->u_head < 0)\n\t\ts->u_head = %d;\n\ts->u_hist[s->u_head] = u;\n\ts->u_hist[s->u_head + %d] = u;\n\tuw = s->u_hist + s->u_head;\n", ulen-1, ulen)
	if mN > 0 {
		wmax := 0
		for _, v := range m.Lift.Sizes {
			wmax = max(wmax, v)
		}
		c.WriteString("\t{\n")
		switch L := len(m.Lift.W); { // hidden layers ping-pong between a and b
		case L >= 3:
			fmt.Fprintf(&c, "\t\tdouble a[%d], b[%d];\n", wmax, wmax)
		case L == 2:
			fmt.Fprintf(&c, "\t\tdouble a[%d];\n", wmax)
		}
		fmt.Fprintf(&c, "\t\tdouble z[%d];\n\t\tdouble *n;\n\t\tconst double *nw;\n\t\tint i, j;\n\n", mN)
		if uw > 0 {
			fmt.Fprintf(&c, "\t\tdouble su = %s;\n", scaleU("u"))
			if m.HoldStart {
				fmt.Fprintf(&c, "\t\tif (!s->started) { /* hold_start: the window before t = 0 holds u(0) */\n\t\t\tfor (i = 0; i < %d; i++)\n\t\t\t\ts->feat[i] = su;\n\t\t} else {\n", uw)
				fmt.Fprintf(&c, "\t\t\tfor (i = 0; i < %d; i++)\n\t\t\t\ts->feat[i] = s->feat[i + 1];\n\t\t\ts->feat[%d] = su;\n\t\t}\n", uw-1, uw-1)
			} else {
				fmt.Fprintf(&c, "\t\tfor (i = 0; i < %d; i++)\n\t\t\ts->feat[i] = s->feat[i + 1];\n\t\ts->feat[%d] = su;\n", uw-1, uw-1)
			}
		}
		if qw > 0 {
			fmt.Fprintf(&c, "\t\tfor (i = %d; i < %d; i++)\n\t\t\ts->feat[i] = s->feat[i + 1];\n\t\ts->feat[%d] = %s;\n", uw, uw+qw-1, uw+qw-1, scaleQ("s->y_prev"))
		}
		fmt.Fprintf(&c, "\t\tif (--s->n_head < 0)\n\t\t\ts->n_head = %d;\n\t\tn = s->n_hist + s->n_head * %d;\n", mG-1, mN)
		c.WriteString("\t\t/* the lifting network: tanh on every layer, the output layer included */\n")
		in := "s->feat"
		L := len(m.Lift.W)
		for l := 0; l < L; l++ {
			out := "a"
			if l%2 == 1 {
				out = "b"
			}
			if l == L-1 {
				out = "n"
			}
			nIn, nOut := m.Lift.Sizes[l], m.Lift.Sizes[l+1]
			fmt.Fprintf(&c, "\t\tfor (i = 0; i < %d; i++) {\n\t\t\tdouble acc = %s_b%d[i];\n\t\t\tfor (j = 0; j < %d; j++)\n\t\t\t\tacc += %s_w%d[i * %d + j] * %s[j];\n\t\t\t%s[i] = tanh(acc);\n\t\t}\n",
				nOut, P, l, nIn, P, l, nIn, in, out)
			in = out
		}
		fmt.Fprintf(&c, "\t\tfor (j = 0; j < %d; j++)\n\t\t\tn[j + %d] = n[j];\n", mN, mG*mN)
		c.WriteString("\t\t/* z_j = sum_k g_j(k) n_j(t-k) u(t-k), k = 0 upward; lags before t = 0 read zeros */\n")
		fmt.Fprintf(&c, "\t\tfor (j = 0; j < %d; j++)\n\t\t\tz[j] = 0.0;\n\t\tnw = n;\n", mN)
		fmt.Fprintf(&c, "\t\tfor (k = 0; k < %d; k++) {\n\t\t\tconst double *g = %s_g + k * %d, *nk = nw + k * %d;\n\t\t\tdouble uk = uw[k];\n\t\t\tfor (j = 0; j < %d; j++)\n\t\t\t\tz[j] += g[j] * nk[j] * uk;\n\t\t}\n", mG, P, mN, mN, mN)
		fmt.Fprintf(&c, "\t\tfor (j = 0; j < %d; j++)\n\t\t\ty += n[j] * z[j];\n\t}\n", mN)
	}
	if mL > 0 {
		fmt.Fprintf(&c, "\tfor (k = 0; k < %d; k++)\n\t\ty += %s_lin[k] * uw[k];\n", mL, P)
	}
	c.WriteString("\ts->started = 1;\n\ts->y_prev = y;\n\treturn y;\n}\n")
	return []File{{name + ".h", h.Bytes()}, {name + ".c", c.Bytes()}}, nil
}

// cAPI ends a header: the declarations of P_init, P_reset and P_step that
// every exported model has, and the include guard's end.
// cUse is the usage part of a model's comment block, the same for every
// model kind around what is the kind's own (middle).
func cUse(P string, middle ...string) []string {
	l := []string{"", "Use: " + P + "_state s; " + P + "_init(&s); then y = " + P + "_step(&s, u) once per sample, in order."}
	l = append(l, middle...)
	return append(l,
		"Compile as C99 or later, without -ffast-math (it reorders the sums); link with -lm (tanh).",
		"No allocation, no global state: one "+P+"_state per running instance.")
}

// cHeaderStart writes the start of a model's header to h: its comment block
// and the include guard with C linkage opened, which cAPI closes; it
// returns the guard's name.
func cHeaderStart(h *bytes.Buffer, lines []string, U string) string {
	cComment(h, lines)
	guard := U + "_H_INCLUDED"
	fmt.Fprintf(h, "#ifndef %s\n#define %s\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", guard, guard)
	return guard
}

func cAPI(h *bytes.Buffer, P, guard string) {
	fmt.Fprintf(h, "/* %s_init prepares a state for its first step (the same as %s_reset). */\nvoid %s_init(%s_state *s);\n", P, P, P, P)
	fmt.Fprintf(h, "/* %s_reset returns to rest: the next step is sample t = 0. */\nvoid %s_reset(%s_state *s);\n", P, P, P)
	fmt.Fprintf(h, "/* %s_step takes u(t) and returns y(t). */\ndouble %s_step(%s_state *s, double u);\n", P, P, P)
	fmt.Fprintf(h, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s */\n", guard)
}

// defineCommon writes the defines every exported model carries: sampling
// time, passivity claim and mode, the model file and its hash, the tool
// version and the certificate method.
func (s *Source) defineCommon(def func(k string, v any, comment string), U string) {
	if s.Meta.Ts > 0 {
		def("TS", hexf(s.Meta.Ts), fmt.Sprintf("sampling time, %g s", s.Meta.Ts))
	} else {
		def("TS", "0.0", "sampling time unknown")
	}
	def("PASSIVE", b01(s.Passive()), "1: certified passive; 0: not (see "+U+"_NOT_PASSIVE)")
	def("PASSIVITY_MODE", cString(s.Meta.Mode), "")
	if mk := s.Marker(); mk != "" {
		def("NOT_PASSIVE", cString(mk), "")
	}
	def("MODEL_FILE", cString(s.File), "")
	def("MODEL_SHA256", cString(s.SHA256), "")
	def("TOOL_VERSION", cString(toolVersion()), "gputrain version that wrote this file")
	def("CERT_METHOD", cString(CertMethod), "")
}
