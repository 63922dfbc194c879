package export_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/passivenfir/gputrain/export"
	"github.com/passivenfir/gputrain/model"
)

// Export a model file as C: the header declares the state and the three
// functions a control loop calls.
func ExampleC() {
	dir, _ := os.MkdirTemp("", "export")
	defer os.RemoveAll(dir)
	m, _ := model.New(model.Structure{LinearTaps: 3})
	copy(m.Lin, []float64{1, 0.5, 0.25})
	path := filepath.Join(dir, "model.json")
	if err := model.Save(path, m, model.Meta{Mode: "exact", Ts: 0.01}); err != nil {
		fmt.Println(err)
		return
	}
	src, err := export.Load(path, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	files, err := export.C(src, "plant")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range files {
		fmt.Println(f.Name)
	}
	for _, l := range strings.Split(string(files[0].Data), "\n") {
		if strings.HasPrefix(l, "void plant_") || strings.HasPrefix(l, "double plant_") || strings.Contains(l, "PLANT_PASSIVE ") {
			fmt.Println(l)
		}
	}
	// Output:
	// plant.h
	// plant.c
	// #define PLANT_PASSIVE        1 /* 1: certified passive; 0: not (see PLANT_NOT_PASSIVE) */
	// void plant_init(plant_state *s);
	// void plant_reset(plant_state *s);
	// double plant_step(plant_state *s, double u);
}
