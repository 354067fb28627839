package server

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

// The dashboard: plain HTML, CSS and JavaScript modules, embedded, that
// read the same /v1 API and event streams as any client.
//
//go:embed web
var webFiles embed.FS

// dashboardPages are the paths that serve the dashboard's page; the
// script shows the one the path names.
var dashboardPages = []string{"GET /{$}", "GET /flows", "GET /flows/{flow}", "GET /runs/{id}"}

// dashboard adds the dashboard's pages and files to mux.
func dashboard(mux *http.ServeMux) {
	web, _ := fs.Sub(webFiles, "web")
	page, _ := fs.ReadFile(web, "index.html")
	for _, p := range dashboardPages {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
			w.Write(page)
		})
	}
	mux.Handle("GET /ui/", http.StripPrefix("/ui/", http.FileServerFS(web)))
}

// isDashboardPath reports whether a path is one of the dashboard's pages
// or files, which are served without the token: they hold no data.
func isDashboardPath(p string) bool {
	return p == "/" || p == "/flows" || strings.HasPrefix(p, "/flows/") || strings.HasPrefix(p, "/runs/") ||
		strings.HasPrefix(p, "/ui/")
}
