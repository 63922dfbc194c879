package export

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/classes/meanclass"
	"github.com/passivenfir/gputrain/model"
)

// MeanMode is the passivity mode an exported mean carries: every member is
// certified in its own mode (a REN's ren-direct, a loop's factored), and a
// weighted mean of passive operators with weights c_i / Σ c ≥ 0 is
// passive.
const MeanMode = "mean"

// loadMean reads a gputrain-model file of class mean, whose bytes are b,
// into src: every member becomes a Source of its own (Members), certified
// as a file of its class would be.
func loadMean(path string, b []byte, allowUncertified bool, src *Source) (*Source, error) {
	_, params, meta, err := classes.DecodeEnvelope(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	cm, err := meanclass.Decode(params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := classes.CheckVersion(cm, meta); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	src.Mean = cm.(*meanclass.Model)
	src.Meta = model.Meta{Ts: meta.Ts, Mode: MeanMode, Training: meta.Training}
	passive := true
	var failed []string
	for i, l := range src.Mean.Members {
		ms := &Source{Meta: model.Meta{Ts: meta.Ts}, File: fmt.Sprintf("%s, member %d", src.File, i), SHA256: src.SHA256}
		ok := false
		switch x := l.Model.(type) {
		case *loopclass.Model:
			ms.Loop, ms.Meta.Mode = x.Mean, LoopMode
			for _, m := range ms.Loop {
				if err := m.Check(); err != nil {
					return nil, fmt.Errorf("%s: params.members[%d].params: %w", path, i, err)
				}
			}
			if ok, err = ms.certifyLoop(); err != nil {
				return nil, fmt.Errorf("%s: member %d: %w", path, i, err)
			}
		case interface{ Unwrap() *baselines.PassiveREN }:
			ms.REN, ms.Meta.Mode = x.Unwrap(), RENMode
			if ms.RENMat, err = ms.REN.Matrices(); err != nil {
				return nil, fmt.Errorf("%s: member %d: %w", path, i, err)
			}
			ok = renPassive(ms.REN, ms.RENMat)
		default:
			return nil, fmt.Errorf("%w: %s: member %d is of class %s, which has no exported form", ErrUnsupported, path, i, l.Model.Class())
		}
		if !ok {
			ms.Claim = Uncertified
			failed = append(failed, fmt.Sprintf("member %d (%s)", i, l.Model.Class()))
		}
		passive = passive && ok
		src.Members = append(src.Members, ms)
	}
	switch {
	case !passive && !allowUncertified:
		return nil, fmt.Errorf("%s: %w: %s fails its certificate (export it anyway, marked NOT PASSIVE, with --allow-uncertified)", path, model.ErrNotPassive, strings.Join(failed, ", "))
	case !passive:
		src.Claim = Uncertified
	}
	return src, nil
}

// meanKind is kind for a mean.
func (s *Source) meanKind() string {
	rens, loops := 0, 0
	for _, ms := range s.Members {
		if ms.REN != nil {
			rens++
		} else {
			loops++
		}
	}
	return fmt.Sprintf("weighted mean of %d passive models (%d RENs, %d loops of two NFIRs), y = (1/%d) sum_i c_i y_i", len(s.Members), rens, loops, s.Mean.Mean().Total())
}

// meanSum is "c_0 y_0 + y_1 + …" for a mean's summary.
func (s *Source) meanSum() string {
	var b strings.Builder
	for i, l := range s.Mean.Members {
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

// meanSummary is summary for a mean: what the mean is, then every
// member's own summary (structure, certificate), indented.
func (s *Source) meanSummary(name string) []string {
	l := s.summaryHead(fmt.Sprintf("%s: a %s, exported by gputrain %s. Do not edit: re-export.", name, s.kind(), toolVersion()))
	l = append(l,
		fmt.Sprintf("structure     : %d models run side by side on the same u; y = (%s) / %d, member i counted c_i times", len(s.Members), s.meanSum(), s.Mean.Mean().Total()),
		s.tsLine())
	switch s.Claim {
	case Certified:
		l = append(l, "passivity     : mode "+MeanMode+"; CERTIFIED PASSIVE: every member below is certified passive in its own",
			"                mode, so their weighted mean is passive (a parallel interconnection, member i scaled by",
			"                c_i / sum c >= 0: <u, y> = sum_i c_i <u, y_i> / sum c >= 0 from rest)")
	default:
		l = append(l, fmt.Sprintf("passivity     : mode %s; NOT PASSIVE: a member fails its certificate (see below)", s.Meta.Mode))
	}
	for i, ms := range s.Members {
		mname := fmt.Sprintf("%s_m%d", name, i)
		body := ms.summary(mname)
		head := len(ms.summaryHead(""))
		l = append(l, "", fmt.Sprintf("member %d (%s_m%d, count %d): a %s", i, name, i, s.Mean.Members[i].Count, ms.kind()))
		for _, b := range body[head:] {
			if strings.HasPrefix(b, "sampling time") {
				continue // the mean's, above
			}
			l = append(l, "  "+b)
		}
	}
	return l
}

// meanC is C for a mean: every member written under NAME_m0, NAME_m1, …
// as a file of its class would be (renMemberC, loopMemberC), and
// NAME_step the weighted mean of their outputs with meanclass.Model's
// arithmetic: in member order y += c_i·y_i, then y /= Σ c.
func meanC(s *Source, name string) ([]File, error) {
	for _, ms := range s.Members {
		for _, m := range ms.Loop {
			if err := m.Check(); err != nil {
				return nil, err
			}
		}
	}
	P, U := name, strings.ToUpper(name)
	n := len(s.Members)
	total := s.Mean.Mean().Total()
	lines := s.summary(name)
	lines = append(lines, cUse(P,
		P+"_step returns y(t) for u(t): the members have direct feedthrough (y(t) depends on u(t)).",
		fmt.Sprintf("The %d members run side by side on the same u (%s_m0, ..., %s_m%d); %s_step returns their weighted mean, y = (%s) / %d.", n, P, P, n-1, P, s.meanSum(), total),
		P+"_reset returns to rest (every member's state zero; the next sample is t = 0).")...)

	h, c := new(bytes.Buffer), new(bytes.Buffer)
	guard := cHeaderStart(h, lines, U)
	def := cDefiner(h, U)
	s.defineCommon(def, U)
	def("MEMBERS", n, "models averaged")
	def("TOTAL", total, "the sum of the members' counts, the mean's divisor")
	cComment(c, lines)
	fmt.Fprintf(c, "#include \"%s.h\"\n\n#include <math.h>\n\n", name)
	for i, ms := range s.Members {
		Pi, Ui := fmt.Sprintf("%s_m%d", P, i), fmt.Sprintf("%s_M%d", U, i)
		fmt.Fprintf(h, "\n/* member %d, count %d: a %s */\n", i, s.Mean.Members[i].Count, ms.kind())
		fmt.Fprintf(c, "/* member %d */\n\n", i)
		if ms.REN != nil {
			renMemberC(h, c, ms.REN, ms.RENMat, Pi, Ui, "static ")
			c.WriteString("\n")
			continue
		}
		nf := len(ms.LoopCert)
		cDefiner(h, Ui)("FIRS", nf, "FIRs certified: H1's branches, H1's linear FIR, H1's sections, H2's branches, H2's linear FIR")
		fmt.Fprintf(h, "/* per FIR, in the order of %s_FIRS: certified lower bound of min Re G and the w where it occurs */\n", Ui)
		fmt.Fprintf(h, "extern const double %s_cert_min_re[%d];\nextern const double %s_cert_omega[%d];\n", Pi, nf, Pi, nf)
		mins, oms := make([]float64, nf), make([]float64, nf)
		for k, fc := range ms.LoopCert {
			mins[k], oms[k] = fc.MinRe, fc.Omega
		}
		cArray(c, false, Pi+"_cert_min_re", mins, "")
		cArray(c, false, Pi+"_cert_omega", oms, "")
		loopMemberC(h, c, ms.Loop[0].Model, Pi, Ui, "static ")
	}
	counts := make([]int, n)
	for i, l := range s.Mean.Members {
		counts[i] = l.Count
	}
	meanStepC(h, c, P, "members", counts)
	h.WriteString("\n")
	cAPI(h, P, guard)
	return []File{{name + ".h", h.Bytes()}, {name + ".c", c.Bytes()}}, nil
}

// meanStepC writes the composite of members written under P_m0, P_m1, …:
// the state type holding theirs to h, and P_reset, P_init and P_step to c,
// the step their weighted mean with ensemble.Mean's arithmetic (in member
// order y += c_i·y_i, the product rounded, then y /= Σ c).
func meanStepC(h, c *bytes.Buffer, P, what string, counts []int) {
	fmt.Fprintf(h, "\n/* The state of one running instance: the states of the %s. */\ntypedef struct {\n", what)
	for i := range counts {
		fmt.Fprintf(h, "\t%s_m%d_state m%d;\n", P, i, i)
	}
	fmt.Fprintf(h, "} %s_state;\n", P)
	fmt.Fprintf(c, "void %s_reset(%s_state *s)\n{\n", P, P)
	for i := range counts {
		fmt.Fprintf(c, "\t%s_m%d_reset(&s->m%d);\n", P, i, i)
	}
	c.WriteString("}\n\n")
	fmt.Fprintf(c, "void %s_init(%s_state *s)\n{\n\t%s_reset(s);\n}\n\n", P, P, P)
	fmt.Fprintf(c, "double %s_step(%s_state *s, double u)\n{\n\tdouble y = 0.0;\n", P, P)
	total := 0
	for i, k := range counts {
		if k != 1 {
			// the count times the member's output, rounded, then added
			fmt.Fprintf(c, "\ty += %d.0 * %s_m%d_step(&s->m%d, u);\n", k, P, i, i)
		} else {
			fmt.Fprintf(c, "\ty += %s_m%d_step(&s->m%d, u);\n", P, i, i)
		}
		total += k
	}
	fmt.Fprintf(c, "\treturn y / %d.0;\n}\n", total)
}
