package experiment

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// WriteMSDTable writes the rows as a Markdown table.
func WriteMSDTable(w io.Writer, rows []Row) {
	fmt.Fprintln(w, "| model | data | closed-loop Fit median | mean | min | max | open-loop median | passive | min Re G | params | time |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		ol := "–"
		if r.OpenLoop != nil {
			ol = fmt.Sprintf("%.2f%%", r.OpenLoop.Median)
		}
		mr := "–"
		if r.MinRe != nil {
			mr = fmt.Sprintf("%.3g", *r.MinRe)
		}
		fmt.Fprintf(w, "| %s | %s | **%.2f%%** | %.2f%% | %.2f%% | %.2f%% | %s | %s | %s | %d | %.0f s |\n",
			r.Model, r.Data, r.ClosedLoop.Median, r.ClosedLoop.Mean, r.ClosedLoop.Min, r.ClosedLoop.Max, ol, r.Passive, mr, r.Params, r.Seconds)
	}
}

// WriteRobotTable writes the robot rows beside the paper's Table II, with a
// column of validation Fits when the rows were trained with a holdout.
func WriteRobotTable(w io.Writer, rows []RobotRow) {
	val := false
	for _, r := range rows {
		_, ok := r.Fit["validation"]
		val = val || ok
	}
	vh, vs, vp := "", "", ""
	if val {
		vh, vs, vp = " validation |", "---|", " |"
	}
	fmt.Fprintf(w, "| model |%s e | v1 | v2 | v3 | passive | min Re G | params | time |\n", vh)
	fmt.Fprintf(w, "|---|%s---|---|---|---|---|---|---|---|\n", vs)
	fmt.Fprintf(w, "| paper FIR |%s 85.19 | 85.54 | 47.60 | 86.17 | | | | |\n", vp)
	fmt.Fprintf(w, "| paper grey-box |%s 85.60 | 85.26 | 57.68 | 95.55 | | | | |\n", vp)
	fmt.Fprintf(w, "| paper NFIR |%s 92.29 | 89.88 | 57.34 | 83.14 | | | | |\n", vp)
	for _, r := range rows {
		mr := "–"
		if r.MinRe != nil {
			mr = fmt.Sprintf("%.3g", *r.MinRe)
		}
		v := ""
		if val {
			v = " – |"
			if f, ok := r.Fit["validation"]; ok {
				v = fmt.Sprintf(" %.2f |", f)
			}
		}
		fmt.Fprintf(w, "| **%s (ours)** |%s %.2f | %.2f | %.2f | %.2f | %s | %s | %d | %.0f s |\n",
			r.Model, v, r.Fit["e"], r.Fit["v1"], r.Fit["v2"], r.Fit["v3"], r.Passive, mr, r.Params, r.Seconds)
	}
}

// WriteSelectionTable writes the candidates of the two-fold selection rule
// (RobotSelect) as a Markdown table, the selected one in bold.
func WriteSelectionTable(w io.Writer, folds []RobotFold) {
	fmt.Fprintln(w, "Selection on e alone (two-fold rule; v1–v3 not used):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| candidate | end fold | middle fold | mean | time |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, f := range folds {
		m := fmt.Sprintf("%.2f", f.Mean)
		if f.Selected {
			m = "**" + m + "** (selected)"
		}
		fmt.Fprintf(w, "| %s | %.2f | %.2f | %s | %.0f s |\n", f.Model, f.End, f.Middle, m, f.Seconds)
	}
}

// BoxPlot draws the per-batch test Fit of each row as a box (closed loop;
// FB models get a second, blue box for the open-loop score, as the paper's
// Fig. 4). Fits below lo are clipped to lo so one diverging batch does not
// flatten the figure. The format follows the file extension (png, svg, pdf).
func BoxPlot(path, title string, rows []Row, lo float64) error {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "test Fit [%]"
	w := vg.Points(14)
	var names []string
	x := 0.0
	for _, r := range rows {
		add := func(fits []float64, c color.Color) error {
			var v plotter.Values
			for _, f := range fits {
				if !math.IsNaN(f) { // a batch without a Fit (zero output)
					v = append(v, math.Max(f, lo))
				}
			}
			b, err := plotter.NewBoxPlot(w, x, v)
			if err != nil {
				return err
			}
			b.FillColor = c
			p.Add(b)
			return nil
		}
		if err := add(r.ClosedLoop.PerBatch, color.RGBA{R: 220, G: 220, B: 220, A: 255}); err != nil {
			return fmt.Errorf("experiment: box plot: %w", err)
		}
		names = append(names, r.Model)
		x++
		if r.OpenLoop != nil {
			if err := add(r.OpenLoop.PerBatch, color.RGBA{R: 120, G: 160, B: 230, A: 255}); err != nil {
				return fmt.Errorf("experiment: box plot: %w", err)
			}
			names = append(names, r.Model+" (OL)")
			x++
		}
	}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 5
	p.X.Tick.Label.XAlign = -0.8
	width := vg.Length(max(len(names), 4)) * vg.Centimeter * 1.6
	if err := p.Save(width, 10*vg.Centimeter, path); err != nil {
		return fmt.Errorf("experiment: save %s: %w", path, err)
	}
	return nil
}
