package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// Templates are the stats pages' html/template files (the pages package parses them).
//
//go:embed templates/*.html
var templateFiles embed.FS

// Templates returns the page templates, with names like "dashboard.html".
func Templates() fs.FS {
	sub, err := fs.Sub(templateFiles, "templates")
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}

//go:embed static
var staticFiles embed.FS

// assetVersions maps each static file to a short hash of its content: pages link
// "/static/app.css?v=HASH", so a new build's assets are fetched at once while unchanged ones
// stay cached for a year.
var assetVersions = func() map[string]string {
	out := map[string]string{}
	err := fs.WalkDir(staticFiles, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := staticFiles.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		out[strings.TrimPrefix(p, "static/")] = hex.EncodeToString(sum[:6])
		return nil
	})
	if err != nil {
		panic(err)
	}
	return out
}()

// AssetURL is the address of a static file with its version, for templates.
func AssetURL(name string) string {
	return "/static/" + name + "?v=" + assetVersions[name]
}

// StaticHandler serves the pages' CSS, JavaScript and images under /static/.
func StaticHandler() http.Handler {
	sub, err := fs.Sub(staticFiles, "static")
	if err != nil {
		panic(err)
	}
	files := http.StripPrefix("/static/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/static/")
		version, ok := assetVersions[name]
		if !ok || strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // no directory listings
			return
		}
		if r.URL.Query().Get("v") == version {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "public, max-age=300")
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		files.ServeHTTP(w, r)
	})
}
