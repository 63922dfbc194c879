package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/passivenfir/gputrain/internal/atomicfile"
)

// Names lists the experiments Run knows.
var Names = []string{"msd", "msd-noisy", "robot"}

// Report is what one experiment produced.
type Report struct {
	Name    string     `json:"name"`
	Command string     `json:"command"`
	Machine string     `json:"machine"`
	Seconds float64    `json:"seconds"`
	MSD     []Row      `json:"msd,omitempty"`
	Robot   []RobotRow `json:"robot,omitempty"`
	// Selection holds the candidates of a robot run with Options.Select,
	// in RobotOrder; Robot then has the selected model's row alone.
	Selection []RobotFold `json:"selection,omitempty"`
	Markdown  string      `json:"-"`
}

// Run runs the named experiment and writes NAME.md, NAME.json and the box
// plot (msd, msd-noisy) into dir, each atomically.
func Run(ctx context.Context, name string, o Options, robotDir, dir, command string) (*Report, error) {
	start := time.Now()
	r := &Report{Name: name, Command: command, Machine: Machine()}
	var err error
	switch name {
	case "msd":
		r.MSD, err = MSD(ctx, o, math.NaN())
	case "msd-noisy":
		r.MSD, err = MSD(ctx, o, 10)
	case "robot":
		if robotDir == "" {
			return nil, fmt.Errorf("experiment: robot data not found: pass --robot DIR (the folder with robot_200Hz_u.csv)")
		}
		if o.Select {
			r.Selection, r.Robot, err = RobotSelect(ctx, o, robotDir)
		} else {
			r.Robot, err = Robot(ctx, o, robotDir)
		}
	default:
		return nil, fmt.Errorf("experiment: unknown experiment %q (want one of %s)", name, strings.Join(Names, ", "))
	}
	r.Seconds = time.Since(start).Seconds()
	if err != nil && len(r.MSD) == 0 && len(r.Robot) == 0 && len(r.Selection) == 0 {
		return nil, err
	}
	if mkErr := os.MkdirAll(dir, 0o755); mkErr != nil {
		return r, fmt.Errorf("experiment: %w", mkErr)
	}
	var md bytes.Buffer
	fmt.Fprintf(&md, "### %s\n\nCommand: `%s`  \nMachine: %s  \nWall time: %.0f s\n\n", name, command, r.Machine, r.Seconds)
	if len(r.MSD) > 0 {
		plotName := name + "-fit.png"
		if perr := BoxPlot(filepath.Join(dir, plotName), "Test Fit, "+r.MSD[0].Data, r.MSD, -50); perr != nil {
			return r, perr
		}
		WriteMSDTable(&md, r.MSD)
		fmt.Fprintf(&md, "\n![test Fit box plot](%s)\n\nConfigurations:\n\n", plotName)
		for _, row := range r.MSD {
			fmt.Fprintf(&md, "- %s: %s\n", row.Model, row.Config)
		}
	}
	if len(r.Selection) > 0 {
		WriteSelectionTable(&md, r.Selection)
		fmt.Fprintln(&md)
	}
	if len(r.Robot) > 0 {
		WriteRobotTable(&md, r.Robot)
		fmt.Fprintf(&md, "\nConfigurations:\n\n")
		for _, row := range r.Robot {
			fmt.Fprintf(&md, "- %s: %s\n", row.Model, row.Config)
		}
	}
	if err != nil {
		fmt.Fprintf(&md, "\nThe run stopped early: %v\n", err)
	}
	r.Markdown = md.String()
	if werr := writeFile(filepath.Join(dir, name+".md"), md.Bytes()); werr != nil {
		return r, werr
	}
	js, jerr := json.MarshalIndent(r, "", " ")
	if jerr != nil {
		return r, fmt.Errorf("experiment: %s.json: %w", name, jerr)
	}
	if werr := writeFile(filepath.Join(dir, name+".json"), js); werr != nil {
		return r, werr
	}
	return r, err
}

func writeFile(path string, b []byte) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// Machine describes this computer for the record.
func Machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "model name") {
				if i := strings.Index(line, ":"); i >= 0 {
					cpu = strings.TrimSpace(line[i+1:])
				}
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d cores (GOMAXPROCS %d), %s/%s, %s", cpu, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
}
