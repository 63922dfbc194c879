// Package gopanic carries a panic of a worker goroutine to the goroutine
// that waits for the workers. Go ends the whole process, with a stack trace,
// on a panic that the goroutine where it happens does not recover; a pool of
// workers that defers Catcher.Catch in each and calls Catcher.Repanic after
// its WaitGroup instead raises the panic again in the waiting goroutine,
// where the usual recovery (the command's one-line "internal error", the
// trainer's PanicError for a member) reports it.
package gopanic
