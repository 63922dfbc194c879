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
// rows contiguous and in time order), an optional y_clean column and an optional time
// column in seconds ([ReadOptions.TimeCol], [DefaultTimeCols]), whose uniform step is
// the sampling time and whose gaps are errors ([ErrTimeStep]). Fields are split by
// encoding/csv: separated by ',', ';' or tab (the first of them in the header line, or
// [ReadOptions.Delim]), optionally quoted within one line, blanks around them ignored. Values
// are decimal numbers (1, -1.5, .5, 1e-3); Go-only forms such as hexadecimal floats or
// 1_000, and decimal commas, are refused.
//
// Standard input: [ReadFile] reads [ReadOptions.Stdin] for the path "-", in the format
// its first bytes show.
//
// NumPy .npz: arrays u and y (and optionally y_clean) of equal shape; a vector, of shape
// (T,), (T, 1) or (1, T), is one batch of T samples, and a B×T array with B, T > 1 holds
// B batches (NumPy's row-major convention). NumPy .npy: one array whose last axis holds
// the signals (u, y) or (u, y, y_clean): shape T×2 or T×3 is one batch, B×T×2 or B×T×3
// is B batches.
//
// MATLAB v5 .mat: numeric variables u and y (names selectable); a vector (T×1 or 1×T) is
// one batch, a T×B matrix with T, B > 1 holds one batch per column (MATLAB's
// column-signal convention). Compressed (miCOMPRESSED) and uncompressed elements,
// little- and big-endian files are read; MATLAB v7.3 (HDF5) files are not.
//
// Element types: NumPy and MATLAB arrays may hold floats (64- or 32-bit) or integers (8
// to 64 bits, signed or unsigned); all are converted to float64, and a 64-bit integer
// beyond ±2^53, which float64 cannot represent exactly, is refused (ErrFormat) rather
// than rounded. Boolean and complex arrays are refused. The .npz and .mat writers store a
// vector for a single batch, so they refuse several batches of one sample each, which
// would read back as one batch.
package data
