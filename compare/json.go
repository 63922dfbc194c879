package compare

import (
	"encoding/json"
	"math"
)

// jsonFloat is NaN and ±Inf as null, which JSON cannot carry otherwise.
func jsonFloat(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// MarshalJSON writes the row with fits as numbers or null.
func (r Row) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Class       string   `json:"class"`
		About       string   `json:"about"`
		ValFit      *float64 `json:"val_fit"`
		TestFit     *float64 `json:"test_fit"`
		Passive     bool     `json:"passive"`
		Certificate string   `json:"certificate"`
		Params      int      `json:"params"`
		Seconds     float64  `json:"seconds"`
		Error       string   `json:"error,omitempty"`
		File        string   `json:"file,omitempty"`
	}{r.Class, r.About, jsonFloat(r.ValFit), jsonFloat(r.TestFit), r.Passive, r.Certificate, r.Params, r.Seconds, r.Error, r.File})
}

// MarshalJSON writes the table: {"data": {…}, "data_check": {…}, "rows": […]}.
func (t Table) MarshalJSON() ([]byte, error) {
	check := any(t.Check)
	if t.Check == nil {
		check = map[string]string{"error": t.CheckError}
	}
	return json.Marshal(struct {
		Data struct {
			Train *DataInfo `json:"train"`
			Val   *DataInfo `json:"val"`
			Test  *DataInfo `json:"test"`
		} `json:"data"`
		Check   any     `json:"data_check"`
		Rows    []Row   `json:"rows"`
		Budget  string  `json:"budget"`
		Seconds float64 `json:"seconds"`
	}{Data: struct {
		Train *DataInfo `json:"train"`
		Val   *DataInfo `json:"val"`
		Test  *DataInfo `json:"test"`
	}{t.Train, t.Val, t.Test}, Check: check, Rows: t.Rows, Budget: budgetName(t.Budget), Seconds: t.Seconds})
}
