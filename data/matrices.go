package data

import (
	"encoding/binary"
	"fmt"
	"io"
)

// MATMatrix is a named real double matrix for WriteMATMatrices, its data
// row-major (Rows·Cols numbers; either size may be 0).
type MATMatrix struct {
	Name       string
	Rows, Cols int
	Data       []float64
}

// WriteMATMatrices writes matrices to w as a MATLAB v5 MAT-file, readable
// by MATLAB's load and scipy.io.loadmat: for files that are not data sets,
// such as a model's state-space matrices. The variables are not compressed,
// so that their names (a NOT_PASSIVE marker, say) show in the bytes.
func WriteMATMatrices(w io.Writer, ms []MATMatrix) error {
	vars := make([]matVar, len(ms))
	for i, m := range ms {
		if m.Rows < 0 || m.Cols < 0 || len(m.Data) != m.Rows*m.Cols {
			return fmt.Errorf("data: MAT variable %s: %d numbers for %d×%d", m.Name, len(m.Data), m.Rows, m.Cols)
		}
		col := make([]float64, len(m.Data)) // MAT-files are column-major
		for r := 0; r < m.Rows; r++ {
			for c := 0; c < m.Cols; c++ {
				col[c*m.Rows+r] = m.Data[r*m.Cols+c]
			}
		}
		vars[i] = matVar{name: m.Name, dims: []int{m.Rows, m.Cols}, data: col}
	}
	return writeMATVars(w, binary.LittleEndian, false, vars)
}
