package web

import (
	"os"
	"strings"
	"testing"

	analytics "github.com/analytics-service/analytics"
)

// The page is light: the whole of it, gzipped as served, in a few dozen kilobytes (the Redoc
// page it replaced was 2,597,766 bytes, 704,462 gzipped). Its plain size grows by about 4 KB
// an operation (69 of them: 268 KB); what travels is the gzipped page.
func TestDocsPageIsLight(t *testing.T) {
	plain, gzipped := len(docs.plain.body), len(docs.gzipped.body)
	t.Logf("docs page: %d bytes, %d gzipped", plain, gzipped)
	if plain > 400<<10 || gzipped > 40<<10 {
		t.Errorf("the docs page weighs %d bytes (%d gzipped)", plain, gzipped)
	}
	if dir := os.Getenv("DOCS_DUMP"); dir != "" {
		_ = os.WriteFile(dir+"/apidocs.html", docs.plain.body, 0o644)
	}
}

// Every operation of the spec is on the page with a curl example made from the spec.
func TestDocsPageHasEveryOperation(t *testing.T) {
	page := string(docs.plain.body)
	for _, want := range []string{
		`id="listWebsites"`, `id="storeWebsite"`, `id="listStats"`, `id="collectEvent"`, `id="getDocs"`,
		`data-copy="curl-listWebsites"`,
		// The key for operations that need one, none for those that do not.
		"curl \\\n  -H &#34;Authorization: Bearer $KEY&#34; \\\n  &#34;$BASE/api/v1/websites",
		// Path and required query parameters from the spec's examples.
		// deepObject examples as the API reads them: filter[NAME]=VALUE, filter_any[NAME]=V1|V2...
		"$BASE/api/v1/stats/7?filter%5Bcountry%5D=DE%3AGermany&amp;filter_any%5Bcountry%5D=DE%7CFR&amp;" +
			"filter_contains%5Bpage%5D=%2Fblog%2F&amp;filter_contains_not%5Bpage%5D=%2Fadmin&amp;filter_not%5Breferrer%5D=www.google.com&amp;from=2026-01-01&amp;name=page&amp;to=2026-01-31",
		// The form of the request's example, a line break inside quotes.
		"--data-urlencode &#39;exclude_ips=10.0.0.0/8\n2001:db8::1&#39;",
		// JSON bodies with their type.
		"-H &#39;Content-Type: application/json&#39;",
		// A JSON body given by named examples only (the query API): the first by name.
		"-d &#39;{&#34;date_range&#34;:&#34;7d&#34;,&#34;metrics&#34;:[&#34;visitors&#34;,&#34;pageviews&#34;],&#34;site_id&#34;:&#34;example.com&#34;}&#39; \\\n  &#34;$BASE/api/v2/query&#34;",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the docs page lacks %q", want)
		}
	}
	if n, ops := strings.Count(page, `<pre class="snippet" id="curl-`)-1, strings.Count(string(analytics.OpenAPI), "operationId:"); n != ops {
		t.Errorf("%d curl examples for %d operations", n, ops)
	}
	if strings.Contains(page, "<script>") || strings.Contains(page, " style=") {
		t.Error("the page has an inline script or style, which its policy refuses")
	}
}

func TestMarkdown(t *testing.T) {
	got := markdown("A `code` word\nand more.\n\n- one `x`\n- two\n  continued\n\n<b>not html</b>")
	if len(got) != 3 || len(got[1].Items) != 2 || !got[0].Spans[1].Code || got[0].Spans[2].Text != " word and more." ||
		got[2].Spans[0].Text != "<b>not html</b>" {
		t.Fatalf("%+v", got)
	}
}

// A fenced block of a description is one block of its lines as written (a long curl command
// scrolls inside it on a phone), not words joined into a paragraph.
func TestMarkdownFencedBlock(t *testing.T) {
	got := markdown("Ask it:\n\n```\ncurl -X POST https://a.example/q \\\n  -d '{}'\n```\n\nDone.")
	if len(got) != 3 || got[1].Pre != "curl -X POST https://a.example/q \\\n  -d '{}'" || got[2].Spans[0].Text != "Done." {
		t.Fatalf("%+v", got)
	}
}
