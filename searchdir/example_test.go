package searchdir_test

import (
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/passivenfir/gputrain/classes"
	_ "github.com/passivenfir/gputrain/classes/all"
	"github.com/passivenfir/gputrain/compare"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/searchdir"
	"github.com/passivenfir/gputrain/trainer"
)

// A rung of one candidate as a sweep plan: the trial is train with the
// candidate's complete settings and the search off, on the data written
// once beside the rung's folder.
func ExampleTrainer_Plan() {
	dir, err := os.MkdirTemp("", "search")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	train, _ := data.GenerateMSD(data.MSDConfig{Batches: 4, Seed: 1, Samples: 100})
	val, _ := data.GenerateMSD(data.MSDConfig{Batches: 2, Seed: 2, Samples: 100})
	t, err := searchdir.Open(dir, train, val, nil)
	if err != nil {
		log.Fatal(err)
	}
	cfg := trainer.DefaultConfig()
	cfg.Workers = 1
	plan, err := t.Plan(search.Rung{Rungs: 1, Names: []string{search.Name(cfg.Structure)}, Configs: []trainer.Config{cfg}})
	if err != nil {
		log.Fatal(err)
	}
	tr := plan.Trials[0]
	fmt.Println(tr.Dir, tr.Name, tr.Data, tr.Val)
	fmt.Println("search", tr.Settings["search"], "branches", tr.Settings["branches"], "workers", tr.Settings["workers"])
	// Output:
	// trial-0000 FB 10×50 R1 1 R2 1 [4,4] ../train.npy ../val.npy
	// search off branches 10 workers 1
}

// A comparison as a sweep plan: one trial per class, train --model CLASS
// with compare's budget, seed and the class's share of the workers.
func ExampleTrainer_ComparePlan() {
	dir, err := os.MkdirTemp("", "compare")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	train, _ := data.GenerateMSD(data.MSDConfig{Batches: 4, Seed: 1, Samples: 100})
	val, _ := data.GenerateMSD(data.MSDConfig{Batches: 2, Seed: 2, Samples: 100})
	t, err := searchdir.Open(dir, train, val, nil)
	if err != nil {
		log.Fatal(err)
	}
	cs, fo, err := compare.Options{Only: []string{"fir", "mlp"}, Budget: classes.Quick, Seed: 3, Workers: 4}.Classes()
	if err != nil {
		log.Fatal(err)
	}
	for _, tr := range t.ComparePlan(cs, fo).Trials {
		args, _ := tr.Args(".")
		fmt.Println(tr.Dir, "gputrain train", strings.Join(args, " "))
	}
	// Output:
	// trial-0000 gputrain train --data ../train.npy --val ../val.npy --ts 0.02 --class-budget=quick --model=fir --seed=3 --val-skip=0 --workers=2
	// trial-0001 gputrain train --data ../train.npy --val ../val.npy --ts 0.02 --class-budget=quick --model=mlp --seed=3 --val-skip=0 --workers=2
}
