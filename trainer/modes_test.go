package trainer

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"
)

// TestModeSet: every mode's Set takes its words only, and its error lists them.
func TestModeSet(t *testing.T) {
	var (
		p Passivity
		m Monitor
		g GramGains
		i Init
		s Scale
		d Device
	)
	for _, tc := range []struct {
		v    interface{ Set(string) error }
		good []string
		bad  string
		want string // in the error of bad
	}{
		{&p, []string{"exact", "sampled", "kyp", "none"}, "maybe", "want exact, sampled, kyp or none"},
		{&m, []string{"open", "closed"}, "", "want open or closed"},
		{&g, []string{"data", "closed", "auto"}, "both", "want data, closed or auto"},
		{&i, []string{"glorot", "fan-in"}, "he", "want glorot or fan-in"},
		{&s, []string{"auto", "none"}, "rms", "want auto or none"},
		{&d, []string{"cpu", "cuda"}, "tpu", "want cpu or cuda"},
	} {
		for _, w := range tc.good {
			if err := tc.v.Set(w); err != nil || fmt.Sprint(tc.v) != w {
				t.Errorf("%T.Set(%q): %v, holds %v", tc.v, w, err, tc.v)
			}
		}
		before := fmt.Sprint(tc.v)
		err := tc.v.Set(tc.bad)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%T.Set(%q): %v, want an error with %q", tc.v, tc.bad, err, tc.want)
		}
		if fmt.Sprint(tc.v) != before {
			t.Errorf("%T.Set(%q) failed but changed the value to %v", tc.v, tc.bad, tc.v)
		}
	}
}

// TestCheckFieldError: a bad mode is a *FieldError naming its JSON key and
// matching ErrConfig; "" is the default of every mode but Passivity.
func TestCheckFieldError(t *testing.T) {
	for _, tc := range []struct {
		set   func(*Config)
		field string // "" for a good config
	}{
		{func(c *Config) { c.Passivity = "maybe" }, "passivity"},
		{func(c *Config) { c.Passivity = "" }, "passivity"},
		{func(c *Config) { c.Monitor = "half" }, "monitor"},
		{func(c *Config) { c.GramGains = "both" }, "gram-gains"},
		{func(c *Config) { c.Init = "he" }, "init"},
		{func(c *Config) { c.Scale = "rms" }, "scale"},
		{func(c *Config) { c.Device = "tpu" }, "device"},
		{func(c *Config) { c.Passivity, c.H = PassivitySampled, 0 }, "H"},
		{func(c *Config) { c.Iters = 0 }, "iters"},
		{func(c *Config) { c.ValSkip = -1 }, "val-skip"},
		{func(c *Config) { c.Monitor, c.GramGains, c.Init, c.Scale, c.Device = "", "", "", "", "" }, ""},
	} {
		c := DefaultConfig()
		tc.set(&c)
		err := c.Check()
		var fe *FieldError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%+v: %v, want no error", c, err)
		case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field || !errors.Is(err, ErrConfig)):
			t.Errorf("want a field error of %s matching ErrConfig, have %v", tc.field, err)
		case tc.field != "" && !strings.Contains(err.Error(), tc.field+": ") && !strings.Contains(err.Error(), fmt.Sprintf("%s %v: ", tc.field, fe.Value)):
			t.Errorf("message %q does not name %s", err, tc.field)
		case tc.field != "" && fe.Flag() != tc.field:
			t.Errorf("%s: flag %q", tc.field, fe.Flag())
		}
	}
	c := DefaultConfig()
	c.Passivity = "maybe"
	if err := c.Check(); err == nil || err.Error() != `trainer: bad configuration: passivity: want exact, sampled, kyp or none, have "maybe"` {
		t.Errorf("message %v", err)
	}
}

// TestModesJSON: the modes marshal as the plain strings that model files
// and config files hold, and read back.
func TestModesJSON(t *testing.T) {
	c := DefaultConfig()
	c.Passivity, c.Init, c.Scale, c.Monitor = PassivitySampled, InitFanIn, ScaleAuto, MonitorClosed
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"passivity":"sampled"`, `"init":"fan-in"`, `"scale":"auto"`, `"monitor":"closed"`, `"gram-gains":"auto"`, `"device":"cpu"`} {
		if !strings.Contains(string(b), w) {
			t.Errorf("%s lacks %s", b, w)
		}
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil || back.Passivity != c.Passivity || back.Init != c.Init || back.Scale != c.Scale || back.Monitor != c.Monitor {
		t.Errorf("read back %+v, %v", back, err)
	}
}

// ExamplePassivity shows a mode as a command-line flag.
func ExamplePassivity() {
	cfg := DefaultConfig()
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	fs.Var(&cfg.Passivity, "passivity", "exact, sampled, kyp or none")
	fmt.Println(fs.Parse([]string{"--passivity", "sampled"}), cfg.Passivity == PassivitySampled)
	fmt.Println(fs.Parse([]string{"--passivity", "maybe"}))
	// Output:
	// <nil> true
	// invalid value "maybe" for flag -passivity: want exact, sampled, kyp or none
}
