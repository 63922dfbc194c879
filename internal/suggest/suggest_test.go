package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"taps", "taps", 0},
		{"Taps", "taps", 0}, // case is ignored
		{"tapps", "taps", 1},
		{"tps", "taps", 1},
		{"tpas", "taps", 1}, // one transposition
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // optimal string alignment: no edit of a transposed pair
		{"vel", "v1", 2},
		{"u", "y", 1},
		{"größe", "grösse", 2}, // runes, not bytes
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetry)", c.b, c.a, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	flags := []string{"branches", "taps", "r1", "r2", "hidden", "lr", "epochs", "iters", "out", "data", "u", "y", "quiet"}
	for _, c := range []struct {
		word       string
		candidates []string
		want       string
	}{
		{"tapps", flags, "taps"},
		{"tpas", flags, "taps"},
		{"Taps", flags, "taps"},
		{"epoch", flags, "epochs"},
		{"brnaches", flags, "branches"},
		{"hiden", flags, "hidden"},
		{"qiuet", flags, "quiet"},
		{"vel", []string{"u", "y", "v1"}, "v1"},
		{"ue", []string{"y", "u"}, "u"},
		{"u", []string{"y", "ue"}, "ue"}, // "y" is as near but shares nothing
		{"r3", flags, "r1"},              // the first of equals
		{"lt", flags, "lr"},              // the one sharing the first letter
		{"x", flags, ""},                 // one letter: "u" and "y" share nothing with it
		{"momentum", flags, ""},
		{"epsilon", flags, ""},
		{"abc", nil, ""},
		{"", flags, ""},
	} {
		got, ok := Closest(c.word, c.candidates)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Closest(%q) = %q, %v; want %q", c.word, got, ok, c.want)
		}
	}
}

func BenchmarkClosest(b *testing.B) {
	cands := []string{"branches", "taps", "r1", "r2", "hidden", "lr", "epochs", "iters", "out", "data", "u", "y", "quiet",
		"patience", "seed", "plot", "config", "ignore-extra", "passivity", "monitor", "device", "budget", "search", "model"}
	for b.Loop() {
		Closest("pateince", cands)
	}
}
