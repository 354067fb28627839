package server

import (
	"net/http"

	"github.com/flowctl/flowctl/runtime"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are what GET /metrics exposes, in a registry of the server's
// own.
type metrics struct {
	registry *prometheus.Registry
	runs     *prometheus.CounterVec   // finished runs, by flow and status
	steps    *prometheus.HistogramVec // step instance durations, by flow and status
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowctl_runs_total", Help: "Runs finished, by flow and status.",
		}, []string{"flow", "status"}),
		steps: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "flowctl_step_duration_seconds", Help: "Durations of step instances that ran, by flow and status.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
		}, []string{"flow", "status"}),
	}
	queued := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "flowctl_runs_queued", Help: "Runs waiting for a place (--max-active) or for their turn (limits).",
	}, func() float64 {
		s.mu.Lock()
		defer s.mu.Unlock()
		return float64(len(s.queue) + len(s.gated))
	})
	active := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "flowctl_runs_active", Help: "Runs running.",
	}, func() float64 {
		s.mu.Lock()
		defer s.mu.Unlock()
		return float64(s.active)
	})
	m.registry.MustRegister(m.runs, m.steps, queued, active,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// observe counts a run's events.
func (m *metrics) observe(flow string, e runtime.Event) {
	switch e := e.(type) {
	case runtime.StepFinished:
		if e.Status == runtime.StatusOK || e.Status == runtime.StatusFailed {
			m.steps.WithLabelValues(flow, string(e.Status)).Observe(e.Duration.Seconds())
		}
	case runtime.RunFinished:
		m.runs.WithLabelValues(flow, string(e.Status)).Inc()
	}
}

// handler serves the metrics in Prometheus's text format.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
