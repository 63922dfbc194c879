// Package data is where every training set of the project comes from, and where it is
// checked before any training starts.
//
// It is the lowest layer of the module and imports no other package of it. It provides
//
//   - the paper's mass-spring-damper plant (Section VI-A): [GenerateMSD], [MSDSplits];
//   - random passive LTI systems for tests: [PassiveFIR], [PassiveSS];
//   - readers and writers for CSV, NumPy .npy/.npz and MATLAB v5 .mat files:
//     [ReadFile], [ReadCSV], [WriteCSV], [WriteNPZ], [WriteMAT];
//   - the industrial robot arm data of the paper (Section VI-B): [Robot], [RobotDir];
//   - the recursive input q(t) = y(t−1) ([Q]) and the input scalers ([FitScaler]), defined
//     here once so that training and evaluation cannot disagree.
//
// # Conventions
//
// A [Dataset] is a list of independent experiments ([Batch]); every signal starts at
// t = 0 from zero initial conditions. Errors are wrapped with context naming the file,
// line, column or batch, and carry one of the exported sentinel errors (ErrEmpty,
// ErrNotFinite, ...) so that callers can test them with errors.Is. Readers never panic on
// user input and refuse input larger than [ReadOptions.MaxBytes]; writers validate the
// dataset first and write atomically (temporary file in the same directory + rename), so
// nothing is written when the input is bad.
//
// # File layouts
//
// CSV: a header line, then one sample per line. Columns u and y (names selectable with
// [ReadOptions]), an optional batch column grouping rows into experiments (each batch's
// rows contiguous and in time order) and an optional y_clean column.
//
// NumPy .npz: arrays u and y (and optionally y_clean), float64 or float32; 1-D = one
// batch, 2-D = batches × T (NumPy's row-major convention). NumPy .npy: one array whose
// last axis holds the signals (u, y) or (u, y, y_clean): shape T×2 (one batch) or B×T×2.
//
// MATLAB v5 .mat: numeric variables u and y (names selectable); a vector is one batch, a
// T×B matrix holds one batch per column (MATLAB's column-signal convention). Compressed
// (miCOMPRESSED) and uncompressed elements, little- and big-endian files are read;
// MATLAB v7.3 (HDF5) files are not.
package data
