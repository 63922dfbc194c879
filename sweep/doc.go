// Package sweep spreads many training runs (a structure search, several
// seeds, a lab's many plants) over a cluster scheduler or the cores of one
// machine, with the same code path in every case.
//
// A Spec (TOML or YAML) names the plants and the train settings; Expand turns
// it into a Plan, a numbered, deterministic list of trials written as
// plan.json. A Runner runs one trial by its index (a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX, a Slurm array's SLURM_ARRAY_TASK_ID) or all pending
// trials a few at a time, each in its own folder trial-NNNN that appears at
// once, complete, with a done (or failed) marker: a trial whose folder exists
// is never redone, and a trial killed half-way leaves only a hidden work
// folder, cleared when the trial is run again. Collect ranks the finished
// trials per plant and lists those that failed or are missing.
//
// The package does not train: the Runner calls a TrainFunc with train's
// command-line flags, which the gputrain command binds to its own train
// command, so that a trial is exactly the run its flags describe.
package sweep
