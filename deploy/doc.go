// Package deploy holds the scheduler templates of a sweep, embedded in the
// binary so that 'gputrain sweep plan --emit' renders the files that are
// shipped, and tested, here: k8s/sweep-job.yaml, a Kubernetes Indexed Job,
// and slurm/sweep.sbatch, a Slurm job array. Their fields are those of
// sweep.Job.
package deploy

import _ "embed"

// K8sJob is the text/template of the Kubernetes Job.
//
//go:embed k8s/sweep-job.yaml
var K8sJob string

// SlurmArray is the text/template of the Slurm batch script.
//
//go:embed slurm/sweep.sbatch
var SlurmArray string
