// Package sysmem reports how much memory the machine can still give a
// process, so that a run too large for it can be refused before it starts
// instead of being killed by the runtime ("fatal error: runtime: out of
// memory") once it has allocated.
package sysmem
