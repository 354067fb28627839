// Package pgtest gives tests a PostgreSQL database of their own: a schema
// of the database FLOWCTL_TEST_STATE_URL names (.ci/with-postgres sets it),
// as a URL whose search path is that schema; or, for a test that must
// restart, crash or kill the server under its store, a cluster of its own.
//
// What enters: the test (testing.TB) and the name of its schema, and the
// environment: EnvURL for the shared database, PG_BIN (else Debian's
// PostgreSQL 15) for the programs a Cluster runs. What leaves: a URL the
// test opens its store with (package runtime/state); "" when EnvURL is not
// set, and the test then skips, or fails when CI is set, as it does
// without PostgreSQL's programs. A Cluster is stopped and removed when its
// test ends (StartCluster), or by StopShared from TestMain
// (SharedCluster); its Deadlocks reads what the server detected.
//
// The files:
//
//   - pgtest.go: a schema of the shared database (URL).
//   - cluster.go: a test's own cluster, and its faults.
package pgtest
