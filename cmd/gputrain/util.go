package main

import (
	"encoding/json"
	"io"

	"github.com/passivenfir/gputrain/data"
)

// writeJSON prints v as one indented JSON object.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return failf("writing JSON: %v", err)
	}
	return nil
}

// numBatches is d.Len() that also accepts nil.
func numBatches(d *data.Dataset) int {
	if d == nil {
		return 0
	}
	return d.Len()
}
