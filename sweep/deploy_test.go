package sweep

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite the golden files of the rendered jobs in testdata")

func k8sJob(gpus int, image string) Job {
	return Job{Name: "gputrain-sweep", Trials: 16, Parallel: 4, Retries: 3, GPUs: gpus, CPUs: 2, Memory: "2Gi",
		Image: image, Claim: "sweep-data", Mount: "/sweep", Dir: "/sweep", Plan: "/sweep/plan.json"}
}

func slurmJob(gpus int) Job {
	return Job{Name: "gputrain-sweep", Trials: 16, Parallel: 4, GPUs: gpus, CPUs: 2,
		Dir: "/shared/runs", Plan: "/shared/runs/plan.json", Binary: "/opt/gputrain/bin/gputrain"}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run 'go test ./sweep -run TestRender -update' to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the rendered file (rerun with -update if the change is meant):\n%s", path, got)
	}
}

func TestRenderK8s(t *testing.T) {
	for _, tc := range []struct {
		golden string
		job    Job
	}{
		{"sweep-job-gpu.yaml", k8sJob(1, "gputrain-cuda")},
		{"sweep-job-cpu.yaml", k8sJob(0, "gputrain-cpu")},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, EmitK8s, tc.job); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.golden, b.Bytes())
			var job struct {
				APIVersion string `yaml:"apiVersion"`
				Kind       string `yaml:"kind"`
				Spec       struct {
					CompletionMode       string `yaml:"completionMode"`
					Completions          int    `yaml:"completions"`
					Parallelism          int    `yaml:"parallelism"`
					BackoffLimitPerIndex *int   `yaml:"backoffLimitPerIndex"`
					PodFailurePolicy     struct {
						Rules []struct {
							Action      string `yaml:"action"`
							OnExitCodes *struct {
								ContainerName string `yaml:"containerName"`
								Operator      string `yaml:"operator"`
								Values        []int  `yaml:"values"`
							} `yaml:"onExitCodes"`
						} `yaml:"rules"`
					} `yaml:"podFailurePolicy"`
					Template struct {
						Spec struct {
							RestartPolicy string `yaml:"restartPolicy"`
							Containers    []struct {
								Name      string   `yaml:"name"`
								Image     string   `yaml:"image"`
								Args      []string `yaml:"args"`
								Resources struct {
									Requests map[string]string `yaml:"requests"`
									Limits   map[string]any    `yaml:"limits"`
								} `yaml:"resources"`
								VolumeMounts []struct {
									Name      string `yaml:"name"`
									MountPath string `yaml:"mountPath"`
								} `yaml:"volumeMounts"`
							} `yaml:"containers"`
							Volumes []struct {
								Name string `yaml:"name"`
								PVC  struct {
									ClaimName string `yaml:"claimName"`
								} `yaml:"persistentVolumeClaim"`
							} `yaml:"volumes"`
						} `yaml:"spec"`
					} `yaml:"template"`
				} `yaml:"spec"`
			}
			dec := yaml.NewDecoder(&b)
			if err := dec.Decode(&job); err != nil {
				t.Fatalf("the rendered YAML does not parse: %v", err)
			}
			s := job.Spec
			if job.APIVersion != "batch/v1" || job.Kind != "Job" || s.CompletionMode != "Indexed" || s.Completions != 16 || s.Parallelism != 4 {
				t.Errorf("job %s %s: mode %q, completions %d, parallelism %d", job.APIVersion, job.Kind, s.CompletionMode, s.Completions, s.Parallelism)
			}
			if s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex != 3 {
				t.Errorf("backoffLimitPerIndex %v, want 3", s.BackoffLimitPerIndex)
			}
			noRetry := false
			for _, r := range s.PodFailurePolicy.Rules {
				if e := r.OnExitCodes; e != nil && r.Action == "FailIndex" && e.Operator == "In" && e.ContainerName == "trial" && reflect.DeepEqual(e.Values, []int{2}) {
					noRetry = true
				}
			}
			if !noRetry {
				t.Error("no podFailurePolicy rule fails the index on exit code 2")
			}
			pod := s.Template.Spec
			if pod.RestartPolicy != "Never" || len(pod.Containers) != 1 || len(pod.Volumes) != 1 {
				t.Fatalf("pod: %+v", pod)
			}
			c := pod.Containers[0]
			if c.Name != "trial" || c.Image != tc.job.Image || !reflect.DeepEqual(c.Args, []string{"sweep", "run", "--plan", "/sweep/plan.json"}) {
				t.Errorf("container %+v", c)
			}
			if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != pod.Volumes[0].Name || c.VolumeMounts[0].MountPath != "/sweep" || pod.Volumes[0].PVC.ClaimName != "sweep-data" {
				t.Errorf("volume %+v mounted as %+v", pod.Volumes, c.VolumeMounts)
			}
			gpu, hasGPU := c.Resources.Limits["nvidia.com/gpu"]
			if (tc.job.GPUs > 0) != hasGPU || (hasGPU && gpu != tc.job.GPUs) {
				t.Errorf("GPU limit %v (present %v), want %d", gpu, hasGPU, tc.job.GPUs)
			}
			if c.Resources.Requests["cpu"] != "2" || c.Resources.Requests["memory"] != "2Gi" {
				t.Errorf("requests %v", c.Resources.Requests)
			}
		})
	}
}

func TestRenderSlurm(t *testing.T) {
	for _, tc := range []struct {
		golden string
		gpus   int
	}{{"sweep.sbatch", 0}, {"sweep-gpu.sbatch", 1}} {
		t.Run(tc.golden, func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, EmitSlurm, slurmJob(tc.gpus)); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.golden, b.Bytes())
			text := b.String()
			for _, want := range []string{"#!/bin/bash\n", "\n#SBATCH --array=0-15%4\n", "\n#SBATCH --cpus-per-task=2\n",
				"\nexec /opt/gputrain/bin/gputrain sweep run --plan /shared/runs/plan.json\n"} {
				if !strings.Contains(text, want) {
					t.Errorf("sbatch lacks %q:\n%s", want, text)
				}
			}
			if got := strings.Contains(text, "\n#SBATCH --gres=gpu:1\n"); got != (tc.gpus > 0) {
				t.Errorf("--gres=gpu:1 present: %v, want %v", got, tc.gpus > 0)
			}
		})
	}
}

func TestRenderRefuses(t *testing.T) {
	bad := k8sJob(0, "x")
	bad.Name = "Bad_Name"
	for _, tc := range []struct {
		emit  Emit
		job   Job
		field string
	}{
		{EmitK8s, bad, "name"},
		{EmitK8s, Job{Name: "a", Trials: 0, Parallel: 1, CPUs: 1, Memory: "1Gi", Image: "i", Claim: "c", Mount: "/m"}, "trials"},
		{EmitK8s, func() Job { j := k8sJob(0, "i"); j.Memory = "lots"; return j }(), "memory"},
		{EmitSlurm, func() Job { j := slurmJob(0); j.Plan = "/a\nrm -rf /"; return j }(), "plan"},
		{EmitSlurm, func() Job { j := slurmJob(0); j.Binary = ""; return j }(), "binary"},
		{Emit("pbs"), slurmJob(0), "emit"},
	} {
		err := Render(&bytes.Buffer{}, tc.emit, tc.job)
		var fe *FieldError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.field+":") {
			t.Errorf("%s %+v: %v, want a field error on %s", tc.emit, tc.job, err, tc.field)
		}
	}
	if got := shellQuote("/a b/it's"); got != `'/a b/it'\''s'` {
		t.Errorf("shellQuote: %s", got)
	}
}
