// Package event holds what a run reports and nothing that runs it: the
// run's events (Event and its types, in the order the runtime reports
// them), the statuses of steps and runs, an instance's Key and Label,
// their JSON documents as apply --json prints them and flowctl serve
// streams them (EventJSON, AppendEventJSON), how values are shown in them
// (PlainJSON, sensitive ones redacted), and a watch session's events
// (CycleStarted, CycleFinished).
//
// Package runtime reports these events and keeps aliases of their names
// (runtime.Event is event.Event); code that only renders a run — the
// CLI's views, a dashboard — imports this package alone. It imports
// nothing that executes: lang for values and blocks for a block's usage
// and notices (a test keeps it so).
package event
