// Package suggest finds the name a user most likely meant when a flag, column or
// variable name is not found, for "did you mean" hints in error messages.
//
// Names are compared case-insensitively by their optimal-string-alignment distance
// (Levenshtein's insertions, deletions and substitutions plus Damerau's transposition of
// two adjacent characters, "tpas" → "taps" being one edit). A candidate is suggested only
// when it is close enough that the hint is more likely to help than to mislead: see
// [Closest].
package suggest
