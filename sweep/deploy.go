package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"text/template"

	"github.com/passivenfir/gputrain/deploy"
)

// Emit is a scheduler a plan is rendered for.
type Emit string

const (
	EmitNone  Emit = ""
	EmitK8s   Emit = "k8s"   // a Kubernetes Indexed Job
	EmitSlurm Emit = "slurm" // a Slurm job array
)

func (e Emit) String() string { return string(e) }

// Set accepts k8s or slurm.
func (e *Emit) Set(s string) error {
	switch Emit(s) {
	case EmitK8s, EmitSlurm:
		*e = Emit(s)
		return nil
	}
	return fmt.Errorf("%q: want k8s or slurm", s)
}

// Job holds the sizes and places a template is rendered with.
type Job struct {
	Name     string // the job's name
	Trials   int    // completions (Kubernetes), array size (Slurm)
	Parallel int    // trials at a time
	Retries  int    // Kubernetes: backoffLimitPerIndex, retries of a lost pod
	GPUs     int    // GPUs per trial (0: a CPU job)
	CPUs     int    // CPU cores per trial
	Memory   string // Kubernetes: memory per trial, such as 2Gi
	Image    string // Kubernetes: the container image
	Claim    string // Kubernetes: the PersistentVolumeClaim holding the plan folder
	Mount    string // Kubernetes: where the claim is mounted
	Dir      string // the plan folder as the pods or nodes see it
	Plan     string // the plan file as the pods or nodes see it
	Binary   string // Slurm: the gputrain binary on the nodes
}

// Last is the last array index.
func (j Job) Last() int { return j.Trials - 1 }

var (
	dnsName  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	quantity = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?([KMGTPE]i?|[munk])?$`)
)

// Check returns the problems of j for the scheduler e as *FieldErrors.
func (j Job) Check(e Emit) error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, &FieldError{Field: field, Err: fmt.Errorf(format, a...)})
	}
	if j.Trials < 1 {
		bad("trials", "%d: need ≥ 1", j.Trials)
	}
	if j.Parallel < 1 {
		bad("parallel", "%d: need ≥ 1", j.Parallel)
	}
	if j.GPUs < 0 {
		bad("gpus", "%d: need ≥ 0", j.GPUs)
	}
	if j.CPUs < 1 {
		bad("cpus", "%d: need ≥ 1", j.CPUs)
	}
	for _, f := range []struct{ name, v string }{{"name", j.Name}, {"dir", j.Dir}, {"plan", j.Plan}, {"image", j.Image}, {"claim", j.Claim}, {"mount", j.Mount}, {"binary", j.Binary}, {"memory", j.Memory}} {
		if strings.ContainsAny(f.v, "\n\r") {
			bad(f.name, "%q has a line break", f.v)
		}
	}
	switch e {
	case EmitK8s:
		if !dnsName.MatchString(j.Name) {
			bad("name", "%q: a Kubernetes name is lower-case letters, digits and dashes", j.Name)
		}
		if j.Retries < 0 {
			bad("retries", "%d: need ≥ 0", j.Retries)
		}
		if !quantity.MatchString(j.Memory) {
			bad("memory", "%q: a Kubernetes quantity such as 2Gi", j.Memory)
		}
		if j.Image == "" || j.Claim == "" || !strings.HasPrefix(j.Mount, "/") {
			bad("image", "the image, the volume claim and an absolute mount path are needed")
		}
	case EmitSlurm:
		if strings.ContainsAny(j.Name+j.Dir, " \t") {
			bad("dir", "%q: #SBATCH lines take no spaces in the name or folder", j.Dir)
		}
		if j.Binary == "" {
			bad("binary", "empty; give the gputrain binary's path on the nodes")
		}
	default:
		bad("emit", "%q: want k8s or slurm", string(e))
	}
	return errors.Join(errs...)
}

// Render writes the template of e filled with j.
func Render(w io.Writer, e Emit, j Job) error {
	if err := j.Check(e); err != nil {
		return err
	}
	text := deploy.K8sJob
	if e == EmitSlurm {
		text = deploy.SlurmArray
	}
	t, err := template.New(string(e)).Option("missingkey=error").Funcs(template.FuncMap{
		"quote": strconv.Quote, // a JSON string, which YAML reads as a double-quoted scalar
		"shell": shellQuote,
	}).Parse(text)
	if err != nil {
		return fmt.Errorf("sweep: template %s: %w", e, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, j); err != nil {
		return fmt.Errorf("sweep: template %s: %w", e, err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// shellQuote quotes s for a POSIX shell where it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// SubmitCommand is the command that submits a rendered file.
func SubmitCommand(e Emit, file string) string {
	if e == EmitSlurm {
		return "sbatch " + shellQuote(file)
	}
	return "kubectl create -f " + shellQuote(file)
}
