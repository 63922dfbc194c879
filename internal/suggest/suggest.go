package suggest

import (
	"strings"
	"unicode/utf8"
)

// MaxDistance is the largest distance at which Closest suggests a name: two typing
// slips. Further apart, a suggestion is more often unrelated than helpful.
const MaxDistance = 2

// Distance returns the optimal-string-alignment distance between a and b, compared
// rune by rune and case-insensitively: the fewest insertions, deletions, substitutions
// and transpositions of adjacent runes that turn one into the other, no substring
// being edited twice.
func Distance(a, b string) int {
	s, t := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	// Three rows of the dynamic-programming table: i−2, i−1 and i.
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d = min(d, prev2[j-2]+1)
			}
			cur[j] = d
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}

// Closest returns the candidate nearest to word and true, or "" and false when none is
// near enough. A candidate is near enough when its distance d to word is at most
// MaxDistance, at most half of word's length rounded up (a short word changed in
// two places is another word), and less than the longer of the two lengths (so that no
// name is suggested for one with nothing in common: "u" for "y"). Among candidates at
// the same distance the first one sharing word's first letter wins, else the first one
// listed. A candidate equal to word, ignoring case, is returned at distance 0.
func Closest(word string, candidates []string) (string, bool) {
	n := utf8.RuneCountInString(word)
	limit := min(MaxDistance, (n+1)/2)
	best, bestD, bestFirst := "", limit+1, false
	first := func(s string) rune {
		r, _ := utf8.DecodeRuneInString(strings.ToLower(s))
		return r
	}
	w0 := first(word)
	for _, c := range candidates {
		d := Distance(word, c)
		if d > limit || d >= max(n, utf8.RuneCountInString(c)) && d > 0 {
			continue
		}
		sameFirst := first(c) == w0
		if d < bestD || d == bestD && sameFirst && !bestFirst {
			best, bestD, bestFirst = c, d, sameFirst
		}
	}
	return best, bestD <= limit
}
