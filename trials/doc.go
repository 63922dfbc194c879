// Package trials runs independent trials — training runs whose results
// depend on their own settings alone — a bounded number at a time. It is
// the one trial runner under the structure search of gputrain train (its
// rungs and the loop shapes), compare's classes and sweep's local runs, so
// that a trial gives the same result whichever of them runs it, and a
// search can be handed to a sweep (and a cluster) without changing it.
//
// An Executor runs tasks by index; Local, the one implementation in this
// package, runs them in goroutines of this process. Tasks start in index
// order, at most Parallel at a time; a task not started when the context is
// cancelled is not called (its error is ErrNotStarted), and a task's panic is
// its error (a *PanicError) instead of the end of the process.
package trials
