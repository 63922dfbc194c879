package chol_test

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/passivenfir/gputrain/internal/chol"
)

// Factorize a small matrix in place: the upper triangle becomes U with
// A = UᵀU (below minBlocked this is gonum's Dpotrf; the result is the same
// factor either way, up to rounding).
func ExampleUpper() {
	a := []float64{
		4, 2, 2,
		0, 5, 3, // the lower triangle is ignored
		0, 0, 6,
	}
	ok := chol.Upper(blas64.Symmetric{Uplo: blas.Upper, N: 3, Stride: 3, Data: a})
	fmt.Println(ok)
	for i := range 3 {
		fmt.Printf("%.4f\n", a[i*3:i*3+3])
	}
	// Output:
	// true
	// [2.0000 1.0000 1.0000]
	// [0.0000 2.0000 1.0000]
	// [0.0000 0.0000 2.0000]
}
