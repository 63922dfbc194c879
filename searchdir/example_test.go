package searchdir_test

import (
	"fmt"
	"log"
	"os"

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
