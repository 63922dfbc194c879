//go:build linux

package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// slurmCluster is a one-node Slurm cluster of this machine, run by the
// test under a configuration in a temporary folder.
type slurmCluster struct {
	conf    string
	env     []string
	tools   map[string]string // name → path
	daemons []*exec.Cmd
}

// freePort returns a TCP port nobody listens on now.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("Slurm: no free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startSlurm starts slurmctld and slurmd in the foreground and waits until
// the node is idle; it skips the test, saying why, where that cannot be.
func startSlurm(t *testing.T) *slurmCluster {
	t.Helper()
	tools := map[string]string{}
	for _, tool := range []string{"slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scancel"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			// the daemons are in /usr/sbin, not on every PATH
			if path, err = exec.LookPath("/usr/sbin/" + tool); err != nil {
				t.Skipf("Slurm: %s not found (install the Debian packages slurm-wlm and munge)", tool)
			}
		}
		tools[tool] = path
	}
	if os.Geteuid() != 0 {
		t.Skip("Slurm: a one-node cluster runs its daemons as root; not root here")
	}
	host, err := os.Hostname()
	if err != nil {
		t.Skipf("Slurm: no host name: %v", err)
	}
	host, _, _ = strings.Cut(host, ".")
	dir := t.TempDir()
	for _, d := range []string{"state", "spool"} {
		os.Mkdir(filepath.Join(dir, d), 0o755)
	}
	// auth/none and cred/none: no munge key to manage for a cluster that
	// lives on one machine for the length of a test.
	conf := filepath.Join(dir, "slurm.conf")
	text := fmt.Sprintf(`ClusterName=gputraintest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmUser=root
SlurmdUser=root
StateSaveLocation=%[4]s/state
SlurmdSpoolDir=%[4]s/spool
SlurmctldPidFile=%[4]s/slurmctld.pid
SlurmdPidFile=%[4]s/slurmd.pid
SlurmctldLogFile=%[4]s/slurmctld.log
SlurmdLogFile=%[4]s/slurmd.log
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=%[1]s Default=YES MaxTime=10 State=UP
`, host, freePort(t), freePort(t), dir)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &slurmCluster{conf: conf, env: append(os.Environ(), "SLURM_CONF="+conf), tools: tools}
	t.Cleanup(c.stop)
	for _, d := range [][]string{{"slurmctld", "-D", "-i", "-f", conf}, {"slurmd", "-D", "-f", conf}} {
		cmd := c.command(d[0], d[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Skipf("Slurm: %s does not start: %v", d[0], err)
		}
		c.daemons = append(c.daemons, cmd)
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if out, _ := c.command("sinfo", "-h", "-o", "%t").Output(); strings.TrimSpace(string(out)) == "idle" {
			return c
		}
	}
	logs, _ := os.ReadFile(filepath.Join(dir, "slurmctld.log"))
	dlogs, _ := os.ReadFile(filepath.Join(dir, "slurmd.log"))
	t.Skipf("Slurm: the node did not come up within 30 s; slurmctld.log:\n%s\nslurmd.log:\n%s", tail(logs), tail(dlogs))
	return nil
}

func tail(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-8):], "\n")
}

func (c *slurmCluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(c.tools[name], args...)
	cmd.Env = c.env
	return cmd
}

// stop ends the daemons it started (SIGTERM, then SIGKILL after 10 s).
func (c *slurmCluster) stop() {
	for _, d := range c.daemons {
		d.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { d.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			d.Process.Kill()
			<-done
		}
	}
}

// TestSweepSlurm submits a rendered sweep array to a one-node Slurm cluster
// started for the test, waits for it with squeue, and checks that collect
// gives the summary and the models of a local run.
func TestSweepSlurm(t *testing.T) {
	bin := buildBinary(t)
	c := startSlurm(t)
	dir := t.TempDir()
	genData(t, dir, 6, "1")
	spec := filepath.Join(dir, "s.toml")
	os.WriteFile(spec, []byte("[[plant]]\nname = \"msd\"\ndata = \"msd-1.csv\"\n[fixed]\nbranches = 1\ntaps = 8\niters = 1\nepochs = 3\n[grid]\nseed = [1, 2, 3, 4]\n"), 0o644)
	local, cluster := filepath.Join(dir, "local"), filepath.Join(dir, "slurm")
	mustRun(t, "sweep", "plan", spec, "--out", local, "--quiet")
	mustRun(t, "sweep", "run", "--plan", filepath.Join(local, "plan.json"), "--quiet")
	want := summaryOf(t, local, 0)

	sbatch := mustRun(t, "sweep", "plan", spec, "--out", cluster, "--emit", "slurm", "--binary", bin, "--quiet")
	script := filepath.Join(dir, "sweep.sbatch")
	os.WriteFile(script, []byte(sbatch), 0o644)
	out, err := c.command("sbatch", "--parsable", script).CombinedOutput()
	if err != nil {
		t.Fatalf("sbatch: %v\n%s", err, out)
	}
	job := strings.TrimSpace(string(out))
	if !regexp.MustCompile(`^\d+$`).MatchString(job) {
		t.Fatalf("sbatch printed %q, not a job id", job)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		q, err := c.command("squeue", "-h", "-j", job, "-o", "%i %t").Output()
		if err == nil && strings.TrimSpace(string(q)) == "" {
			break
		}
		if time.Now().After(deadline) {
			c.command("scancel", job).Run()
			t.Fatalf("the array is still queued or running after 90 s: %s", q)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if got := summaryOf(t, cluster, 0); got != want {
		logs, _ := filepath.Glob(filepath.Join(cluster, ".slurm-*"))
		var b strings.Builder
		for _, l := range logs {
			s, _ := os.ReadFile(l)
			fmt.Fprintf(&b, "%s: %s\n", l, s)
		}
		t.Fatalf("Slurm array: summary\n%s\nwant (local run)\n%s\njob output:\n%s", got, want, b.String())
	}
	sameModels(t, local, cluster, 4)
}
