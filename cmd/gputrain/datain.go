package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/passivenfir/gputrain/internal/suggest"
)

// stdin is what a data flag given "-" reads (data.ReadOptions.Stdin); tests
// replace it.
var stdin io.Reader = os.Stdin

// testHookLoaded, when set by a test, is called once a command's data are
// loaded (readData, readInputs): an interruption test then cancels in the
// work that follows, however long loading took on a loaded machine.
var testHookLoaded func()

func loaded() {
	if testHookLoaded != nil {
		testHookLoaded()
	}
}

// readErr reports an error reading the file of --flagName: a read stopped by
// Ctrl-C (ctx) is a failure (exit 1) that says nothing was written, anything
// else bad input (exit 2).
func readErr(ctx context.Context, flagName string, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return &cliError{code: exitFailure, err: fmt.Errorf("%w; interrupted while loading, nothing was written", flagErr{flagName, err})}
	}
	return badInput(flagErr{flagName, err})
}

// flagHint returns " (did you mean --NAME?)" for the flag package's error
// about an undefined flag that is near one of fs's flags, else "".
func flagHint(fs *flag.FlagSet, err error) string {
	const undefined = "flag provided but not defined: -"
	msg := err.Error()
	if !strings.HasPrefix(msg, undefined) {
		return ""
	}
	typed := strings.TrimLeft(strings.TrimPrefix(msg, undefined), "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if s, ok := suggest.Closest(typed, names); ok {
		return fmt.Sprintf(" (did you mean --%s?)", s)
	}
	return ""
}
