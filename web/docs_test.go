package web

import (
	"crypto/sha256"
	"encoding/base64"
	"reflect"
	"testing"
)

func TestInlineScriptHashes(t *testing.T) {
	sum := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
	}
	page := `<!DOCTYPE html><html><head><script>var a = "</div>";</script></head>` +
		`<body><div><SCRIPT type="module">import("x") &amp; 1</SCRIPT></div><p>not a script</p></body></html>`
	got, err := inlineScriptHashes([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	// The hash is of the text exactly as written: no entity is decoded inside a script.
	if want := []string{sum(`var a = "</div>";`), sum(`import("x") &amp; 1`)}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if _, err := inlineScriptHashes([]byte(`<script src="https://cdn.example/x.js"></script>`)); err == nil {
		t.Fatal("a script loaded from elsewhere was accepted")
	}
	if _, err := docsPolicy([]byte(`<p>no script</p>`)); err == nil {
		t.Fatal("a page without scripts was accepted as the Redoc page")
	}
}
