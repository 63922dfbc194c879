package trainbench

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/data"
)

func TestTimeToFit(t *testing.T) {
	curve := []Point{{1, 50}, {2, 79.9}, {3, 80.5}, {4, 80}}
	for _, tc := range []struct {
		final, tol, want float64
	}{
		{80.5, 0.2, 3},
		{80.5, 0.7, 2},
		{80, 0, 3},
		{90, 0.2, math.NaN()},
		{40, 0.2, 1},
	} {
		got := TimeToFit(curve, tc.final, tc.tol)
		if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("TimeToFit(final %v, tol %v) = %v, want %v", tc.final, tc.tol, got, tc.want)
		}
	}
	if got := TimeToFit(nil, 1, 1); !math.IsNaN(got) {
		t.Errorf("no curve: %v, want NaN", got)
	}
}

func TestSelectCases(t *testing.T) {
	cs, err := selectCases([]string{"twomass", "msd"})
	if err != nil || len(cs) != 2 || cs[0].Name != "twomass" || cs[1].Name != "msd" {
		t.Errorf("selectCases: %v, %v", cs, err)
	}
	if _, err := selectCases([]string{"msdd"}); !errors.Is(err, ErrCase) || !strings.Contains(err.Error(), "msd, twomass") {
		t.Errorf("unknown case: %v", err)
	}
	if cs, _ := selectCases(nil); len(cs) != len(Cases()) {
		t.Errorf("no selection: %d cases", len(cs))
	}
}

// TestRun trains a tiny case with the quick schedule: the closed-loop
// curve has one point per iteration in time order, the final Fit is reached
// on it, no later than the training's end, and the markdown row shows it.
func TestRun(t *testing.T) {
	tiny := Case{Name: "tiny", Build: func(ctx context.Context, quick bool) (*data.Dataset, *data.Dataset, error) {
		tr, err := data.GenerateMSD(data.MSDConfig{Batches: 4, Seed: 1, Samples: 120})
		if err != nil {
			return nil, nil, err
		}
		va, err := data.GenerateMSD(data.MSDConfig{Batches: 2, Seed: 2, Samples: 120})
		return tr, va, err
	}}
	opt := Options{Quick: true, Workers: 1}
	r := run(context.Background(), tiny, opt)
	if r.Error != "" {
		t.Fatal(r.Error)
	}
	if len(r.ClosedLoop) != Config(opt).Iters || len(r.Monitored) == 0 {
		t.Fatalf("%d closed-loop points for %d iterations, %d monitored", len(r.ClosedLoop), Config(opt).Iters, len(r.Monitored))
	}
	for i := 1; i < len(r.ClosedLoop); i++ {
		if r.ClosedLoop[i].Seconds < r.ClosedLoop[i-1].Seconds {
			t.Errorf("curve out of time order: %v", r.ClosedLoop)
		}
	}
	if math.IsNaN(r.TimeToFit) || r.TimeToFit > r.Seconds || r.Samples != 4*120 {
		t.Errorf("time to fit %v of %v s, %d samples", r.TimeToFit, r.Seconds, r.Samples)
	}
	var b strings.Builder
	Markdown(&b, []Result{r}, "gputrain bench train")
	if !strings.Contains(b.String(), "| tiny | 480 |") {
		t.Errorf("markdown:\n%s", b.String())
	}
}

// TestResultJSON: a failed run's NaN figures are null, measured ones numbers.
func TestResultJSON(t *testing.T) {
	b, err := json.Marshal(Result{Case: "x", FinalValFit: math.NaN(), TimeToFit: math.NaN(), Error: "boom"})
	if err != nil || !strings.Contains(string(b), `"final_val_fit":null`) || !strings.Contains(string(b), `"time_to_fit":null`) {
		t.Errorf("failed run: %s, %v", b, err)
	}
	b, err = json.Marshal(Result{Case: "x", FinalValFit: 88.5, TimeToFit: 12})
	if err != nil || !strings.Contains(string(b), `"final_val_fit":88.5`) || !strings.Contains(string(b), `"time_to_fit":12`) {
		t.Errorf("measured run: %s, %v", b, err)
	}
}
