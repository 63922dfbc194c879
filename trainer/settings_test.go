package trainer

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/model"
)

// TestSettingsRoundTrip: a Config written as JSON (Settings, keyed by the
// flags' names) reads back equal, with the keys a training object carries
// besides its settings passed over and "_" accepted for "-".
func TestSettingsRoundTrip(t *testing.T) {
	c := DefaultConfig()
	c.Structure = model.Structure{Branches: 3, Taps: 20, R1: 2, R2: 1, Hidden: []int{5, 3}, Feedback: true, LinearTaps: 7, HoldStart: true}
	c.Passivity, c.H, c.Eps, c.GammaG, c.WeightDecay = PassivitySampled, 300, 0.02, 0.5, 1e-4
	c.BPTTEpochs, c.BPTTLR, c.ValSkip, c.Skip, c.Members, c.Seed = 4, 1e-4, 7, 3, 2, 9
	c.Init, c.Scale, c.Monitor, c.GramGains = InitFanIn, ScaleAuto, MonitorClosed, GramGainsData
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"gamma-g":0.5`, `"linear-taps":7`, `"val-skip":7`, `"bptt-lr":0.0001`, `"hold-start":true`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("%s lacks %s", b, k)
		}
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	m["data"], m["structure_search"], m["provenance"] = "train.csv", map[string]any{"chosen": "x"}, map[string]any{"tool": "gputrain"}
	m["gamma_g"] = 0.5 // a config file's spelling
	delete(m, "gamma-g")
	b2, _ := json.Marshal(m)
	var back Config
	if err := json.Unmarshal(b2, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, c) {
		t.Errorf("read back\n%+v\nwrote\n%+v", back, c)
	}
	if err := json.Unmarshal([]byte(`{"taps": "many"}`), &back); err == nil || !strings.Contains(err.Error(), `"taps"`) {
		t.Errorf("a string for taps: %v, want an error naming the key", err)
	}
}

// TestCheckStructureFields: the structure's training rules are field errors
// named as the flags, checked before the model's own shape rules.
func TestCheckStructureFields(t *testing.T) {
	for _, tc := range []struct {
		st    model.Structure
		field string
	}{
		{model.Structure{Branches: -1, Taps: 5, R1: 1}, "branches"},
		{model.Structure{Branches: 2, Taps: 0, R1: 1}, "taps"},
		{model.Structure{Branches: 2, Taps: 5, R1: 0, R2: 1, Feedback: true}, "r1"},
		{model.Structure{Branches: 2, Taps: 5, R1: 1, R2: 0, Feedback: true}, "r2"},
		{model.Structure{LinearTaps: -3}, "linear-taps"},
		{model.Structure{LinearTaps: 8, HoldStart: true}, "hold-start"},
	} {
		c := DefaultConfig()
		c.Structure = tc.st
		err := c.Check()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || fe.Flag() != tc.field {
			t.Errorf("%+v: %v, want a field error of %s", tc.st, err, tc.field)
		}
	}
	c := DefaultConfig()
	c.Structure = model.Structure{} // no parameters: the model's own rule
	if err := c.Check(); !errors.Is(err, model.ErrShape) || !errors.Is(err, ErrConfig) {
		t.Errorf("empty structure: %v, want ErrShape within ErrConfig", err)
	}
}
