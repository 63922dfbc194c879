package zoobench

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/classes"
	_ "github.com/passivenfir/gputrain/classes/all"
	"github.com/passivenfir/gputrain/zoo"
)

// TestRun: two cases, two fast classes: one row per case in the report,
// a Fit and a passivity mark per class, the data check's verdict; unknown
// names are refused before any work.
func TestRun(t *testing.T) {
	opt := Options{Size: zoo.Quick, Budget: classes.Quick, Cases: []string{"boucwen", "satind"}, Classes: []string{"fir", "n4sid"}, Seed: 1, Workers: 2}
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2 {
		t.Fatalf("%d results, want 2", len(rep.Results))
	}
	var md strings.Builder
	rep.Markdown(&md, "gputrain bench zoo --quick")
	out := md.String()
	for _, want := range []string{"| case | Ts | data check | fir | n4sid | time |", "| boucwen | 0.02 s | passive | ", "| satind | ", " ✓ (", " np (", "Command: `gputrain bench zoo --quick`"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for _, r := range rep.Results {
		for _, row := range r.Table.Rows {
			if row.Error != "" || !(row.TestFit > 0) {
				t.Errorf("%s %s: test fit %v, error %q", r.Case.Name, row.Class, row.TestFit, row.Error)
			}
		}
	}
	for _, bad := range []Options{{Cases: []string{"nope"}}, {Classes: []string{"nope"}}} {
		if _, err := Run(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "nope") {
			t.Errorf("%+v: err %v", bad, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, opt); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v", err)
	}
}

// TestMeasured: the zoo's validation data reach the classes without the
// noise-free output (a user's validation file has none), and the case's
// own data are left as they were.
func TestMeasured(t *testing.T) {
	c, err := zoo.LookupCase("backlash") // 20 dB output noise on training and validation
	if err != nil {
		t.Fatal(err)
	}
	_, val, _, err := c.Build(context.Background(), zoo.Quick, 1)
	if err != nil {
		t.Fatal(err)
	}
	if val.Batches[0].YClean == nil {
		t.Fatal("the noisy case's validation data have no clean output to drop")
	}
	m := Measured(val)
	for i, b := range m.Batches {
		if b.YClean != nil || !slices.Equal(b.Y, val.Batches[i].Y) || !slices.Equal(b.U, val.Batches[i].U) {
			t.Fatalf("record %d: YClean %v, or Y/U changed", i, b.YClean != nil)
		}
	}
	if val.Batches[0].YClean == nil {
		t.Error("Measured modified its argument")
	}
	if Measured(nil) != nil {
		t.Error("Measured(nil) != nil")
	}
}
