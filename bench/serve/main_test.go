package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// A start refused with 503 queue_full is tried again after its
// Retry-After and counted; the accepted run is followed to run_finished.
func TestRunHonoursRetryAfter(t *testing.T) {
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "POST" && r.URL.Path == "/v1/flows/bench/runs":
			if posts.Add(1) <= 2 {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusServiceUnavailable)
				fmt.Fprint(w, `{"error": {"code": "queue_full"}}`)
				return
			}
			w.WriteHeader(http.StatusAccepted)
			fmt.Fprint(w, `{"run_id": "r1", "status": "running"}`)
		case r.URL.Path == "/v1/runs/r1/events":
			fmt.Fprint(w, "event: run_started\ndata: {}\n\nevent: step_finished\ndata: {}\n\nevent: run_finished\ndata: {}\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	_, refused, err := run(context.Background(), srv.Client(), srv.URL, 7)
	if err != nil {
		t.Fatal(err)
	}
	if refused != 2 || posts.Load() != 3 {
		t.Fatalf("refused %d, posts %d; want 2 and 3", refused, posts.Load())
	}
}

// A stream that ends before run_finished is an error, not a finished run.
func TestRunStreamWithoutFinish(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" {
			w.WriteHeader(http.StatusAccepted)
			fmt.Fprint(w, `{"run_id": "r1"}`)
			return
		}
		fmt.Fprint(w, "event: run_started\ndata: {}\n\n")
	}))
	defer srv.Close()
	if _, _, err := run(context.Background(), srv.Client(), srv.URL, 1); err == nil {
		t.Fatal("no error for a stream without run_finished")
	}
}
