package data

import (
	"fmt"
	"os"
	"path/filepath"
)

// RobotTs is the sampling time of the 200 Hz robot arm CSV files (s).
const RobotTs = 0.005

// Robot loads the industrial robot arm data (Wernholt 2006, the paper's Section VI-B)
// from dir: robot_200Hz_u.csv (columns ue,uv1,uv2,uv3: motor torque, Nm) and
// robot_200Hz_y.csv (ye,yv1,yv2,yv3: motor velocity, rad/s), the four experiments
// resampled to 200 Hz. It returns the paper's split: train is experiment "e" and tests
// are "v1", "v2", "v3", one batch each, Ts = RobotTs. The data belongs to its publisher:
// read it from its directory (see RobotDir), never copy it into this repository.
func Robot(dir string) (train *Dataset, tests []*Dataset, err error) {
	opt := ReadOptions{}
	up, yp := filepath.Join(dir, "robot_200Hz_u.csv"), filepath.Join(dir, "robot_200Hz_y.csv")
	u, err := ReadColumns(up, opt, "ue", "uv1", "uv2", "uv3")
	if err != nil {
		return nil, nil, err
	}
	y, err := ReadColumns(yp, opt, "ye", "yv1", "yv2", "yv3")
	if err != nil {
		return nil, nil, err
	}
	names := []string{"e", "v1", "v2", "v3"}
	sets := make([]*Dataset, len(names))
	for i, n := range names {
		if len(u[i]) != len(y[i]) {
			return nil, nil, fmt.Errorf("data: robot experiment %s: %d input samples in %s but %d output samples in %s: %w",
				n, len(u[i]), up, len(y[i]), yp, ErrLengthMismatch)
		}
		sets[i] = &Dataset{Name: n, Ts: RobotTs, Batches: []Batch{{U: u[i], Y: y[i]}}}
		if err := sets[i].Validate(1); err != nil {
			return nil, nil, err
		}
	}
	return sets[0], sets[1:], nil
}

// RobotDir returns the default location of the robot data, ../shared/data/robot relative
// to the module root (the nearest directory above the working directory holding go.mod),
// or "" when it is absent (tests then skip).
func RobotDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			cand := filepath.Join(filepath.Dir(dir), "shared", "data", "robot")
			if _, err := os.Stat(filepath.Join(cand, "robot_200Hz_u.csv")); err == nil {
				return cand
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
