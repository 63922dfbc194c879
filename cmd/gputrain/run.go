package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/passivenfir/gputrain/trainer"
)

// Exit codes: a script can tell "the tool failed" from "you called it wrong".
const (
	exitOK      = 0 // success
	exitFailure = 1 // the work failed, was interrupted, or (certify) the model is not passive
	exitUsage   = 2 // bad usage or bad input: a flag, a file, a value
	// exitInternal is a bug of gputrain (a panic), never the user's doing:
	// a script should report it rather than retry with other input.
	exitInternal = 3
)

// cliError carries the exit code with the one-line message printed for it.
type cliError struct {
	code int
	err  error
}

func (e *cliError) Error() string { return e.err.Error() }
func (e *cliError) Unwrap() error { return e.err }

// usagef reports bad usage or bad input (exit 2).
func usagef(format string, a ...any) error {
	return &cliError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// badInput wraps an error caused by the user's input (exit 2).
func badInput(err error) error { return &cliError{code: exitUsage, err: err} }

// failf reports a failure of the work itself (exit 1).
func failf(format string, a ...any) error {
	return &cliError{code: exitFailure, err: fmt.Errorf(format, a...)}
}

// errHelp is returned by parseFlags after printing --help: exit 0.
var errHelp = errors.New("help printed")

// env is what every command gets: the writers and the context that Ctrl-C
// cancels.
type env struct {
	ctx            context.Context
	stdout, stderr io.Writer
	args           []string  // the command line after the program name, as given
	start          time.Time // when the command started (model files record it)
}

// command is one entry of the command table.
type command struct {
	name, summary string
	run           func(e *env, args []string) error
}

func commands() []command {
	return []command{
		{"demo", "generate mass-spring-damper data, train a passive FB NFIR, evaluate, certify, plot", runDemo},
		{"gen", "generate data sets: gen msd|PLANT --batches N --seed S [--snr DB] --out FILE.csv; gen list: the plant zoo", runGen},
		{"train", "train an NFIR model on a data file: train --data FILE --out model.json", runTrain},
		{"eval", "closed- and open-loop Fit of a model on a data file", runEval},
		{"simulate", "write a model's closed-loop output for the inputs of a data file", runSimulate},
		{"resample", "lower the sampling rate of a data file by an integer factor, anti-aliased: resample --data FILE --out FILE", runResample},
		{"certify", "the exact passivity certificate of a model file", runCertify},
		{"export", "a model as C, an FMI 2.0 FMU or state-space matrices: export --model model.json --format c|fmu|python-ss --out DIR", runExport},
		{"experiment", "reproduce the paper's evaluation: experiment msd|msd-noisy|robot (writes docs/results)", runExperiment},
		{"compare", "train every model class on the same data and tabulate fit, passivity, parameters, time", runCompare},
		{"sweep", "many trainings as a scheduler's array or on local cores: sweep plan|run|collect", runSweep},
		{"version", "the tool version, Go version and platform (also: gputrain --version)", runVersion},
		{"bench", "benchmarks: bench qp (the θ_G solver, Table I) | bench epoch (one training epoch) | bench train (time to a trained model) | bench zoo (every class on the plant zoo)", runBench},
	}
}

// testHookContext, when set by a test, replaces the signal context of run so
// that the test can "press Ctrl-C" by cancelling it.
var testHookContext func() (context.Context, context.CancelFunc)

// run is the whole program: it parses args, runs one command and returns the
// exit code. It never panics on user input; an unexpected panic is reported
// as one line with the version and exit 3 (exitInternal), never a stack trace.
func run(args []string, stdout, stderr io.Writer) (code int) {
	start := time.Now()
	var ctx context.Context
	var stop context.CancelFunc
	if testHookContext != nil {
		ctx, stop = testHookContext()
		defer stop()
	} else {
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		finished := make(chan struct{})
		defer close(finished) // runs before stop: a normal exit is never reported as an interrupt
		go func() {
			<-ctx.Done()
			select {
			case <-finished:
				return
			default:
			}
			// Restore the default action so that a second Ctrl-C kills the
			// process (files are written atomically, so that is safe too).
			stop()
			what := "stopping; nothing is written"
			if len(args) > 0 && slices.Contains([]string{"train", "demo", "experiment"}, args[0]) {
				what = "stopping and keeping the best model so far"
			}
			fmt.Fprintf(stderr, "\ngputrain: interrupted: %s (Ctrl-C again to abort)\n", what)
		}()
	}
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr, args: args, start: start}

	if len(args) == 0 {
		printUsage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			// "gputrain help train" is "gputrain train --help".
			return run([]string{args[1], "--help"}, stdout, stderr)
		}
		printUsage(stdout)
		return exitOK
	case "--version", "-version":
		fmt.Fprintln(stdout, readBuildInfo())
		return exitOK
	}
	var cmd *command
	for _, c := range commands() {
		if c.name == name {
			cmd = &c
			break
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "gputrain: unknown command %q; run 'gputrain help' for the list of commands\n", name)
		return exitUsage
	}
	defer func() {
		if r := recover(); r != nil {
			code = internalError(stderr, name, r)
		}
	}()
	err := cmd.run(e, args[1:])
	return report(stderr, "gputrain "+name, err)
}

// internalError reports a recovered panic as one line with the tool version
// and returns exitInternal.
func internalError(stderr io.Writer, name string, r any) int {
	fmt.Fprintf(stderr, "gputrain %s: internal error (gputrain %s): %s; please report it with the command line you ran\n", name, toolVersion(), oneLine(fmt.Sprint(r)))
	return exitInternal
}

// report prints err as one line and returns its exit code.
func report(stderr io.Writer, prefix string, err error) int {
	if err == nil || errors.Is(err, errHelp) {
		return exitOK
	}
	code := exitFailure
	var ce *cliError
	var pe *trainer.PanicError
	switch {
	case errors.As(err, &ce):
		code = ce.code
	case errors.As(err, &pe):
		// a panic in a worker goroutine, which the trainer turned into an error
		fmt.Fprintf(stderr, "%s: internal error (gputrain %s): %s; please report it with the command line you ran\n", prefix, toolVersion(), oneLine(err.Error()))
		return exitInternal
	}
	msg := strings.ReplaceAll(err.Error(), "\n", "; ")
	fmt.Fprintf(stderr, "%s: %s\n", prefix, msg)
	return code
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `gputrain — passive lifted FIR (NFIR) models of nonlinear systems

Usage:
  gputrain COMMAND [flags]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run 'gputrain COMMAND --help' for the flags of a command, with an example.
Start with:  gputrain demo --quick

Exit codes: 0 success; 1 failure: the work failed or was interrupted, a simulation went non-finite,
or (certify) the model is not passive; 2 bad usage or bad input (a flag, a file, an existing --out
without --force), found before any work; 3 internal error (a bug: please report it).
`)
}

// flagSpec describes a command for its --help text.
type flagSpec struct {
	usage   string // "gputrain train --data FILE [flags]"
	about   string // what it does, a few lines
	example string // one or more example command lines
	// cmdline, when not nil, receives the names of the flags given on the
	// command line itself (not by --config), for checks that must not fire on
	// a config file's complete set of keys, such as a stored training object.
	cmdline map[string]bool
}

// newFlags returns a FlagSet that reports nothing by itself: parseFlags
// prints the errors as one line and --help to stdout.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args into fs, then fills every flag that the command line
// did not set from --config FILE when the command has a "config" flag. It
// returns errHelp after printing the help text, and usage errors (exit 2)
// for unknown flags, bad values, stray arguments and bad config files.
func parseFlags(e *env, fs *flag.FlagSet, spec flagSpec, args []string) error {
	name := fs.Name()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(e.stdout, fs, spec)
			return errHelp
		}
		return usagef("%v%s; run '%s --help' for usage", err, flagHint(fs, err), name)
	}
	if fs.NArg() > 0 {
		hint := ""
		if !strings.HasPrefix(fs.Arg(0), "-") {
			hint = " (flags come before anything else, and files are given with flags such as --data FILE)"
		}
		return usagef("unexpected argument %q%s; run '%s --help' for usage", fs.Arg(0), hint, name)
	}
	if spec.cmdline != nil {
		fs.Visit(func(f *flag.Flag) { spec.cmdline[f.Name] = true })
	}
	if cf := fs.Lookup("config"); cf != nil && cf.Value.String() != "" {
		if err := applyConfig(fs, cf.Value.String()); err != nil {
			return err
		}
	}
	return nil
}

func printHelp(w io.Writer, fs *flag.FlagSet, spec flagSpec) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n\nExample:\n%s\n\nFlags:\n", spec.usage, strings.TrimSpace(spec.about), indent(spec.example))
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	sort.Strings(names)
	for _, n := range names {
		f := fs.Lookup(n)
		arg, usage := flag.UnquoteUsage(f)
		head := "  --" + n
		if arg != "" {
			head += " " + arg
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && !strings.Contains(usage, "(default") {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n      %s%s\n", head, usage, def)
	}
	if fs.Lookup("config") != nil {
		fmt.Fprint(w, "\n--config FILE reads flags from a TOML (.toml) or YAML (.yaml, .yml) file whose keys are the\nflag names without dashes (e.g. taps = 50, hidden = [4, 4]); flags given on the command line win.\n")
	}
}

func indent(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

// isSet reports whether the flag name was given on the command line or by
// the config file.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}
