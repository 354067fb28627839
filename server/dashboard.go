package server

import (
	"bytes"
	"embed"
	"io/fs"
	"net/http"
)

// The dashboard: plain HTML, CSS and JavaScript modules, embedded, that
// read the same /v1 API and event streams as any client.
//
//go:embed web
var webFiles embed.FS

// dashboardPages are the paths that serve the dashboard's page; the
// script shows the one the path names.
var dashboardPages = []string{"GET /{$}", "GET /flows", "GET /flows/{flow}", "GET /runs/{id}", "GET /evals"}

// dashboard adds the dashboard's pages and files to mux; the page carries
// the CSRF token its writes send when the server has no tokens (guard.go).
func dashboard(mux *http.ServeMux, csrf string) {
	web, _ := fs.Sub(webFiles, "web")
	page, _ := fs.ReadFile(web, "index.html")
	page = bytes.Replace(page, []byte("{{csrf}}"), []byte(csrf), 1)
	for _, p := range dashboardPages {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
			w.Write(page)
		})
	}
	mux.Handle("GET /ui/", http.StripPrefix("/ui/", http.FileServerFS(web)))
	// The icon, at the path browsers ask for whatever the page links.
	icon, _ := fs.ReadFile(web, "favicon.svg")
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Header().Set("Cache-Control", "max-age=86400")
		w.Write(icon)
	})
}
