package web

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// apidocs.html is the API documentation, generated from openapi.yaml by `make generate`
// (Redocly build-docs with the Redoc bundle inlined): never edit it by hand.
//
//go:embed apidocs.html
var apiDocsHTML []byte

var docs struct {
	plain, gzipped asset
	csp            string
}

func init() {
	csp, err := docsPolicy(apiDocsHTML)
	if err != nil {
		panic(err) // the file is embedded at build time; unreadable means a broken build
	}
	docs.plain = newAsset(apiDocsHTML)
	docs.gzipped = newAsset(gzipBytes(apiDocsHTML))
	docs.csp = csp
}

// docsPolicy is the page's Content-Security-Policy. The page is self-contained: its scripts are
// inline (the Redoc bundle, the spec and a colour-mode switch), so each is allowed by its hash
// and no other script can run, and nothing may be loaded from anywhere, this service included.
// Styles are allowed inline: Redoc's server-rendered CSS is in <style> elements, its
// components set style attributes at run time, and a style cannot run code.
func docsPolicy(page []byte) (string, error) {
	hashes, err := inlineScriptHashes(page)
	if err != nil {
		return "", err
	}
	if len(hashes) == 0 {
		return "", fmt.Errorf("apidocs.html has no inline script: not a Redoc page")
	}
	return "default-src 'none'; script-src " + strings.Join(hashes, " ") +
		"; style-src 'unsafe-inline'; img-src data:; font-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'", nil
}

// inlineScriptHashes returns the CSP source ('sha256-...') of each inline script of page. A
// script with a src would be loaded from elsewhere, which the page must not do.
func inlineScriptHashes(page []byte) ([]string, error) {
	z := html.NewTokenizer(bytes.NewReader(page))
	var hashes []string
	inScript := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() == io.EOF {
				return hashes, nil
			}
			return nil, z.Err()
		case html.StartTagToken:
			name, hasAttr := z.TagName()
			inScript = atom.Lookup(name) == atom.Script
			for inScript && hasAttr {
				var key []byte
				key, _, hasAttr = z.TagAttr()
				if string(key) == "src" {
					return nil, fmt.Errorf("apidocs.html loads a script from elsewhere")
				}
			}
		case html.TextToken:
			if inScript {
				sum := sha256.Sum256(z.Raw())
				hashes = append(hashes, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
			}
		case html.EndTagToken:
			inScript = false
		}
	}
}

// DocsHandler serves the API documentation page (GET /api/v1/docs).
func DocsHandler() http.Handler {
	return http.HandlerFunc(serveDocs)
}

func serveDocs(w http.ResponseWriter, r *http.Request) {
	if methodNotAllowed(w, r) {
		return
	}
	h := w.Header()
	// Revalidated on every view (a cheap 304), so a new version shows at once.
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Security-Policy", docs.csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	serveAsset(w, r, docs.plain, docs.gzipped, "text/html; charset=utf-8")
}
