package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/passivenfir/gputrain/export"
)

// buildInfo is what 'gputrain version' prints, and what a model file
// records of the tool that wrote it.
type buildInfo struct {
	Version  string `json:"version"`            // main.version, else the module version, else export.BuildVersion
	Revision string `json:"revision,omitempty"` // VCS revision the binary was built from
	Time     string `json:"time,omitempty"`     // its commit time
	Modified bool   `json:"modified,omitempty"` // the tree had uncommitted changes
	Go       string `json:"go"`
	Platform string `json:"platform"` // GOOS/GOARCH
}

// readBuildInfo reads the version set with -ldflags "-X main.version=…"
// and what Go embeds in the binary.
func readBuildInfo() buildInfo {
	b := buildInfo{Version: version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.time":
				b.Time = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if b.Version == "" {
		b.Version = export.BuildVersion() // the module version, else the revision, else "devel"
	}
	return b
}

// String is the one line of 'gputrain --version'.
func (b buildInfo) String() string {
	var vcs []string
	if b.Revision != "" {
		vcs = append(vcs, "revision "+b.Revision)
	}
	if b.Time != "" {
		vcs = append(vcs, b.Time)
	}
	if b.Modified {
		vcs = append(vcs, "modified")
	}
	s := "gputrain " + b.Version
	if len(vcs) > 0 {
		s += " (" + strings.Join(vcs, ", ") + ")"
	}
	return s + " " + b.Go + " " + b.Platform
}

// toolVersion is the version alone, as error messages and model files give it.
func toolVersion() string { return readBuildInfo().Version }

func runVersion(e *env, args []string) error {
	fs := newFlags("gputrain version")
	jsonOut := fs.Bool("json", false, `print {"version", "revision", "time", "modified", "go", "platform"} on stdout`)
	spec := flagSpec{
		usage: "gputrain version [--json]",
		about: `The tool version (set at build time with -ldflags "-X main.version=…", else the module version
or VCS revision Go embeds in the binary), the Go version and the platform. 'gputrain --version' is
the same. Model files written by train record the version too (training.provenance).`,
		example: `gputrain version
gputrain --version`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if *jsonOut {
		return writeJSON(e.stdout, readBuildInfo())
	}
	_, err := fmt.Fprintln(e.stdout, readBuildInfo())
	return err
}

// provenanceKey is the key of the training object under which a model file
// records the run that wrote it (docs/MODEL_FORMAT.md); --config skips it.
const provenanceKey = "provenance"

// provenance is that record: which tool, built how, ran which command line,
// from when to when (UTC, RFC 3339).
type provenance struct {
	Tool         string `json:"tool"` // "gputrain"
	Version      string `json:"version"`
	Revision     string `json:"revision,omitempty"`
	RevisionTime string `json:"revision_time,omitempty"`
	Modified     bool   `json:"modified,omitempty"`
	Go           string `json:"go"`
	Platform     string `json:"platform"`
	CommandLine  string `json:"command_line"` // shell-quoted, as it can be run again
	Start        string `json:"start"`
	End          string `json:"end"`
}

// withProvenance returns the training object with the provenance of the run
// of e added, ending now. A training object that is not a JSON object (none
// is) is returned as it is.
func withProvenance(training json.RawMessage, e *env) json.RawMessage {
	m := map[string]json.RawMessage{}
	if len(training) > 0 {
		if err := json.Unmarshal(training, &m); err != nil {
			return training
		}
	}
	if e == nil {
		e = &env{}
	}
	b := readBuildInfo()
	start := e.start
	if start.IsZero() {
		start = time.Now()
	}
	p := provenance{Tool: "gputrain", Version: b.Version, Revision: b.Revision, RevisionTime: b.Time, Modified: b.Modified,
		Go: b.Go, Platform: b.Platform, CommandLine: shellJoin(append([]string{"gputrain"}, e.args...)),
		Start: start.UTC().Format(time.RFC3339), End: time.Now().UTC().Format(time.RFC3339)}
	raw, err := json.Marshal(p)
	if err != nil {
		return training
	}
	m[provenanceKey] = raw
	out, err := json.Marshal(m)
	if err != nil {
		return training
	}
	return out
}
