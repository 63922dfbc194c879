package baselines

import "errors"

// Sentinel errors; every error of this package caused by its input wraps one of them.
var (
	// ErrConfig: an invalid model configuration (order, horizon, layer sizes, rates, …).
	ErrConfig = errors.New("invalid configuration")
	// ErrData: the dataset cannot support the requested identification: it is nil,
	// empty, invalid (see data.Dataset.Validate), too short, or not exciting.
	ErrData = errors.New("unusable data")
	// ErrNumerical: a factorisation failed or produced non-finite values.
	ErrNumerical = errors.New("numerical failure")
)
