package classes

import "fmt"

// String is the budget's name: full or quick.
func (b Budget) String() string {
	if b == Quick {
		return "quick"
	}
	return "full"
}

// Set parses full or quick, so that a Budget is a flag value
// (train --class-budget).
func (b *Budget) Set(s string) error {
	switch s {
	case "full":
		*b = Full
	case "quick":
		*b = Quick
	default:
		return fmt.Errorf("%q: want full or quick", s)
	}
	return nil
}
