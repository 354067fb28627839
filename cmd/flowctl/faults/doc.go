// Package faults holds the fault-injection tests of flowctl's shared
// PostgreSQL state (issue 37): they run flowctl apply, serve and a
// Temporal worker as processes on a PostgreSQL cluster of their own,
// restart the cluster (fast and immediate) and crash it (kill -9 of the
// postmaster) under them, and count the side effects of the flows' steps
// on a local HTTP server: every step result must be recorded once, no
// step instance called twice, and every process must recover by itself.
// They also run concurrent applies on one state and two servers firing
// one schedule; and a server's own faults (TestServerFaults): killed right
// after it answered 202, stopped (SIGSTOP) past two leases, its state
// answering nothing while it is read. The package has no code but its tests; the flowctl they
// run is the test binary itself (TestMain), as in package cli.
package faults
