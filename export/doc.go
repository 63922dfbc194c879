// Package export takes a trained model (a gputrain-nfir model file, or a
// gputrain-model file of class loop) to the places where controllers are
// designed: C for embedded targets and any language with a C interface, an
// FMI co-simulation FMU for Simulink, Modelica tools and FMPy, and a
// state-space realization for python-control and MATLAB. Every artifact
// computes what model.(*NFIR).Simulate computes (the closed loop, q(t) =
// y(t−1)), or loop.(*Model).Simulate for a loop, and the tests prove it to
// 1e-12 relative by compiling and running what is generated.
//
// # Which model exports to which format
//
//	model                                c    fmu  python-ss
//	NFIR (branches > 0), gputrain-nfir   yes  yes  no: not linear
//	linear FIR (branches 0)              yes  yes  yes
//	loop, gputrain-model class loop      yes  yes  no: not linear
//	passive REN, gputrain-model ren      yes  yes  no: not linear
//	other gputrain-model classes         no   no   no (ErrUnsupported)
//
// A loop, y = H1(u − H2(y)), the model train writes when its search picks
// it, exports as the same streaming C (NAME_init, NAME_reset, NAME_step)
// and the same FMU wrapper. Each step is a sample of loop.Stepper: the
// lifting network's gains from u(t−R1+1..t) and past outputs only, each
// NFIR split into a·x(t) + r with r the terms of earlier samples, and the
// loop's algebraic equation solved in closed form, y'(t) = (a1 (u'(t) − r2)
// + r1)/(1 + a1 a2), well posed because every passive FIR has g(0) ≥ 0.
// Its certificate lists every FIR of H1 and H2 (FIRCert); its passivity
// mode is LoopMode, passive by parameterization, and the certificate is
// recomputed from the taps at export like an NFIR's. A mean of loops
// (loop.Mean: params.members) exports its loops side by side under
// NAME_m0, NAME_m1, …, NAME_step summing their outputs in order and dividing
// by their number; its certificate lists every FIR of every loop.
//
// A passive REN (the model train writes when its search picks one) exports
// as C and FMU too: its explicit model (A, B1, B2, C1, D11, D12, C2, D21,
// D22, built from the direct parameters as baselines.PassiveREN does), the
// equilibrium layer solved neuron by neuron, sums in the order of
// PassiveREN.Simulate. Its certificate is the smallest eigenvalue of H,
// the matrix of the dissipation LMI, recomputed at export (RENMode).
//
// # What every artifact carries
//
// The model file's SHA-256 and base name, the tool version (Version, set by
// the command from its main.version; when empty, BuildVersion reads the
// module version or VCS revision that Go embeds in the binary), the
// structure, and the passivity certificate recomputed from the taps at
// export (per FIR: a rigorous lower bound of min Re G(e^{iω}) and the ω where
// it occurs; see CertMethod), in a comment block and as constants. A model
// whose file claims passivity that its taps fail is refused (Load), unless
// the caller allows it; such a model, and one trained with --passivity none,
// carries the Marker "NOT PASSIVE: …" in every artifact: the first lines of
// the C header and source, the FMU's description and documentation, and the
// .npz/.mat files.
//
// # C
//
// C writes NAME.h and NAME.c: C99, no dependency but tanh from <math.h>, no
// allocation and no global state (one NAME_state per instance; NAME_init,
// NAME_reset, NAME_step). Every parameter is written as a hexadecimal
// floating constant, which a C99 compiler reads back to the same double. The
// sums are formed in the order of model.Stepper, so the only differences
// from Simulate are libm's tanh against Go's math.Tanh (at most 2 ulp apart
// with glibc: TestLibmTanh) and fused multiply-adds where the compiler forms
// them (C99 mode does not, by default); the tests bound the outputs at
// 1e-12 relative, and measure about 4e-16.
//
// # FMU (FMI 2.0 co-simulation, source code only)
//
// FMU writes NAME.fmu, a zip of modelDescription.xml, sources/ (the C above,
// NAME_fmi2.c implementing every fmi2 function of the co-simulation
// interface, and NAME_fmi2.h with the declarations the standard's headers
// make, written from the standard since its headers are not a package here)
// and documentation/index.html. FMI 2.0 rather than 3.0 because 2.0 is what
// FMPy, OpenModelica, Simulink and Dymola all import today; a sampled model
// with one input and one output needs nothing 3.0 adds (clocks would only
// formalize the sampling that the fixed communication step already states).
// The FMU carries no binaries: importers compile the sources (FMPy's
// "compile", Dymola and OpenModelica do it on import).
//
// Timing, precisely: the FMU has one input u (value reference 0) and one
// output y (value reference 1) and a fixed communication step equal to the
// sampling time ts (canHandleVariableCommunicationStepSize = false; a step
// of N·ts holds u for N samples). fmi2DoStep(t_k, ts) takes the u set
// before it as u(k), computes the model's sample k, and after it y holds
// y(k), the model's output for that same sample, which depends on u(k)
// (the NFIR has direct feedthrough through g(0)). So y read at
// communication point t_{k+1} = t_k + ts is y(k): seen from the master the
// FMU is a sampled system whose output is latched at the end of the step, y
// does not depend on the u set at the current communication point
// (ModelStructure lists no dependency, so a closed loop through a
// controller FMU has no algebraic loop), and a master that records y after
// each step sees the NFIR's output one step ts later than gputrain simulate
// lists it. Before the first step y = 0.
//
// # State space
//
// StateSpace writes, for a plain linear FIR (a model with no branches), the
// realization A, B, C, D of G(z) = Σ_k g(k) z^{−k} with the state x(t) =
// [u(t−m+1), …, u(t−1)] (A the upper shift, B = e_{m−1}, C = [g(m−1) … g(1)],
// D = g(0)) in NAME_ss.npz and NAME_ss.mat, with the sampling time and the
// certificate. Its passivity is checked twice. The impulse response D, CB,
// CAB, … recovered from A, B, C, D must be the taps, and is certified again
// (convex.Certify, rigorous). And the KYP certificate of Theorem 4: X ⪰ 0
// with [[X − AᵀXA, Cᵀ − AᵀXB], [C − BᵀXA, D + Dᵀ − BᵀXB]] ⪰ 0, found by the
// KYP solver of package kyp on the problem whose solution is the taps
// themselves and checked with kyp.Check on this realization, is written
// into the files as X (up to 250 taps: the solver is O(m³) per Newton
// step), so that MATLAB or python-control users can verify the LMI with
// eig. python/gputrain_model.py's load_ss repeats both checks.
package export
