// Command gputrain trains, evaluates and certifies passive lifted FIR (NFIR)
// models of nonlinear systems from input-output data.
//
// Run "gputrain help" for the list of commands and "gputrain COMMAND --help"
// for the flags of one command. The whole program lives in run, so that the
// tests drive it in-process exactly as a user does.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
