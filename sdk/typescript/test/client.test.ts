// The SDK against a running server on real PostgreSQL. The Go test handlers/sdk_test.go starts
// the server, makes a user and a key, and runs `node --test` here with:
//   ANALYTICS_BASE_URL  the server's address
//   ANALYTICS_API_KEY   the user's key
//   ANALYTICS_DAY       the day (YYYY-MM-DD) on which the server counts hits
// Every response is also checked against openapi.yaml by the Go side.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Analytics, AnalyticsError, formBody, type Website } from "../src/index.js";

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this through handlers/sdk_test.go (make test)`);
  return v;
}

const baseUrl = env("ANALYTICS_BASE_URL");
const apiKey = env("ANALYTICS_API_KEY");
const day = env("ANALYTICS_DAY");
const api = new Analytics({ baseUrl, apiKey });

/** rejects runs f and returns the AnalyticsError it must throw. */
async function rejects(f: () => Promise<unknown>, status: number): Promise<AnalyticsError> {
  try {
    await f();
  } catch (e) {
    assert.ok(e instanceof AnalyticsError, `not an AnalyticsError: ${String(e)}`);
    assert.equal(e.status, status, e.message);
    return e;
  }
  assert.fail(`no error, want ${status}`);
}

test("formBody sends numbers, booleans and empty strings, and leaves out undefined", () => {
  assert.equal(
    formBody({ domain: "a.com", privacy: 2, favorite: false, exclude_ips: "", password: undefined }),
    "domain=a.com&privacy=2&favorite=false&exclude_ips=",
  );
  assert.equal(formBody(undefined), "");
});

test("websites: store, show, update, patch, list, delete", async () => {
  const stored = await api.storeWebsite({
    domain: "https://www.SDK-Example.com/blog",
    privacy: 1,
    email: 1,
    exclude_bots: 0,
    exclude_ips: "10.0.0.0/8\n2001:db8::1",
  });
  assert.equal(stored.domain, "sdk-example.com");
  assert.deepEqual(
    [stored.privacy, stored.email, stored.exclude_bots, stored.favorite, stored.password],
    [1, 1, 0, false, false],
  );
  assert.equal(stored.exclude_ips, "10.0.0.0/8\n2001:db8::1");

  assert.deepEqual(await api.showWebsite(stored.id), stored);

  const put = await api.updateWebsite(stored.id, { favorite: true, exclude_ips: "" });
  assert.equal(put.favorite, true);
  assert.equal(put.exclude_ips, null);
  assert.equal(put.email, 1, "fields not sent stay");

  const patched = await api.patchWebsite(stored.id, { privacy: 2, password: "s3cret", favorite: false });
  assert.deepEqual([patched.privacy, patched.password, patched.favorite], [2, true, false]);

  await api.patchWebsite(stored.id, { favorite: true });
  const favorites = await api.listWebsites({ favorite: true, search: "sdk-example" });
  assert.deepEqual(favorites.data.map((w) => w.id), [stored.id]);
  const others = await api.listWebsites({ favorite: false, search: "sdk-example" });
  assert.deepEqual(others.data, []);

  assert.deepEqual(await api.deleteWebsite(stored.id), { id: stored.id, object: "website", deleted: true });
  await rejects(() => api.showWebsite(stored.id), 404);
});

test("goals: store, list, refuse, delete", async () => {
  const site = await api.storeWebsite({ domain: "sdk-goals.example" });
  const event = await api.storeGoal(site.id, { kind: "event", event: "Outbound Link: Click", currency: "EUR" });
  assert.deepEqual(
    { ...event, id: 0 },
    { id: 0, kind: "event", page: null, event: "Outbound Link: Click", display_name: "Outbound Link: Click", currency: "EUR" },
  );
  const page = await api.storeGoal(site.id, { kind: "pageview", page: "/signup/*", display_name: "Signup" });
  assert.equal(page.page, "/signup/*");
  const list = await api.listGoals(site.id, { per_page: 10 });
  assert.deepEqual(list.data.map((g) => g.display_name), ["Outbound Link: Click", "Signup"]);
  assert.equal(list.meta.total, 2);

  const conversions = await api.client.GET("/api/v1/stats/{website_id}/goals", {
    params: { path: { website_id: site.id }, query: { from: day, to: day } },
  });
  assert.equal(conversions.response.status, 200);
  assert.deepEqual(
    conversions.data?.data.map((c) => [c.goal, c.visitors, c.conversion_rate, c.total_revenue]),
    [
      ["Outbound Link: Click", 0, 0, { amount: "0.00", currency: "EUR" }],
      ["Signup", 0, 0, null],
    ],
  );

  const properties = await api.client.GET("/api/v1/stats/{website_id}/properties", {
    params: { path: { website_id: site.id }, query: { from: day, to: day, property_filter: { plan: "pro" } } },
  });
  assert.equal(properties.response.status, 200);
  assert.deepEqual(properties.data?.data, []);
  const values = await api.client.GET("/api/v1/stats/{website_id}", {
    params: { path: { website_id: site.id }, query: { name: "property", property: "plan", from: day, to: day } },
  });
  assert.equal(values.response.status, 200);
  const noKey = await api.client.GET("/api/v1/stats/{website_id}", {
    params: { path: { website_id: site.id }, query: { name: "property", from: day, to: day } },
  });
  assert.equal(noKey.response.status, 422);
  const revenue = await api.client.GET("/api/v1/stats/{website_id}/revenue", {
    params: { path: { website_id: site.id }, query: { from: day, to: day } },
  });
  assert.equal(revenue.response.status, 200);
  assert.deepEqual(revenue.data?.data, []);

  const err = await rejects(() => api.storeGoal(site.id, { kind: "pageview", page: "signup" }), 422);
  assert.deepEqual(Object.keys(err.errors), ["page"]);
  await rejects(() => api.listGoals(987654321), 404);

  assert.deepEqual(await api.deleteGoal(site.id, page.id), { id: page.id, object: "goal", deleted: true });
  await rejects(() => api.deleteGoal(site.id, page.id), 404);
  await api.deleteWebsite(site.id);
});

test("shields, retention, alerts, reset", async () => {
  const site = await api.storeWebsite({ domain: "sdk-shields.example", block_countries: "ru", block_pages: "/admin/*", retention_days: 60 });
  assert.equal(site.block_countries, "RU");
  assert.equal(site.retention_days, 60);
  const bad = await rejects(() => api.patchWebsite(site.id, { allowed_hostnames: "https://x.example/" }), 422);
  assert.deepEqual(Object.keys(bad.errors), ["allowed_hostnames"]);

  const alerts = await api.setAlerts(site.id, { drop_threshold: 5, addresses: "ops@sdk-shields.example" });
  assert.deepEqual(alerts, { spike_threshold: null, drop_threshold: 5, addresses: [{ email: "ops@sdk-shields.example", confirmed: false }] });
  assert.deepEqual(await api.alerts(site.id), alerts);
  const zero = await rejects(() => api.setAlerts(site.id, { spike_threshold: 0 }), 422);
  assert.deepEqual(Object.keys(zero.errors), ["spike_threshold"]);

  const wrong = await rejects(() => api.resetStats(site.id, { confirm: "other.example" }), 422);
  assert.deepEqual(Object.keys(wrong.errors), ["confirm"]);
  const reset = await api.resetStats(site.id, { confirm: "sdk-shields.example", from: day, to: day });
  assert.equal(reset.from, day);
  await api.deleteWebsite(site.id);
});

test("funnels: store, list, numbers, refuse, delete", async () => {
  const site = await api.storeWebsite({ domain: "sdk-funnels.example" });
  const a = await api.storeGoal(site.id, { kind: "pageview", page: "/pricing" });
  const b = await api.storeGoal(site.id, { kind: "event", event: "Signup" });
  const funnel = await api.storeFunnel(site.id, { name: "Signup", steps: [b.id, a.id] });
  assert.deepEqual(funnel.steps.map((s) => s.goal_id), [b.id, a.id]);
  const list = await api.listFunnels(site.id, { per_page: 10 });
  assert.deepEqual(list.data.map((f) => f.name), ["Signup"]);

  const numbers = await api.funnel(site.id, funnel.id, { from: day, to: day });
  assert.deepEqual(numbers.data.steps.map((s) => [s.goal, s.visitors, s.conversion_rate]), [
    ["Signup", 0, 100],
    ["Visit /pricing", 0, 0],
  ]);

  const err = await rejects(() => api.storeFunnel(site.id, { name: "One", steps: [a.id] }), 422);
  assert.deepEqual(Object.keys(err.errors), ["steps"]);
  assert.deepEqual(await api.deleteFunnel(site.id, funnel.id), { id: funnel.id, object: "funnel", deleted: true });
  await rejects(() => api.deleteFunnel(site.id, funnel.id), 404);
  await api.deleteWebsite(site.id);
});

test("segments and annotations: store, list, change, refuse, delete", async () => {
  const site = await api.storeWebsite({ domain: "sdk-segments.example" });
  const filters = [["is", "visit:country", ["DE"]]];
  const seg = await api.storeSegment(site.id, { name: "Germany", type: "site", filters: JSON.stringify(filters) });
  assert.deepEqual([seg.name, seg.type, seg.filters], ["Germany", "site", filters]);
  const renamed = await api.updateSegment(site.id, seg.id, { name: "Deutschland" });
  assert.equal(renamed.name, "Deutschland");
  assert.deepEqual((await api.listSegments(site.id)).data.map((s) => s.name), ["Deutschland"]);
  const bad = await rejects(() => api.storeSegment(site.id, { name: "x", filters: '[["is", "visit:nothing", ["a"]]]' }), 422);
  assert.deepEqual(Object.keys(bad.errors), ["filters"]);
  assert.deepEqual(await api.deleteSegment(site.id, seg.id), { id: seg.id, object: "segment", deleted: true });
  await rejects(() => api.deleteSegment(site.id, seg.id), 404);

  const note = await api.storeAnnotation(site.id, { date: day, note: "Launch" });
  assert.deepEqual([note.date, note.note, note.type], [day, "Launch", "personal"]);
  assert.equal((await api.updateAnnotation(site.id, note.id, { note: "Launched" })).note, "Launched");
  assert.deepEqual((await api.listAnnotations(site.id, { from: day, to: day })).data.map((a) => a.note), ["Launched"]);
  const long = await rejects(() => api.storeAnnotation(site.id, { date: day, note: "x".repeat(301) }), 422);
  assert.deepEqual(Object.keys(long.errors), ["note"]);
  assert.deepEqual(await api.deleteAnnotation(site.id, note.id), { id: note.id, object: "annotation", deleted: true });
  await api.deleteWebsite(site.id);
});

test("401: a wrong key, whatever else is wrong", async () => {
  const stranger = new Analytics({ baseUrl, apiKey: "pa_not-a-key" });
  const err = await rejects(() => stranger.listWebsites({ per_page: 10 }), 401);
  assert.equal(err.message, "Unauthenticated.");
  assert.deepEqual(err.errors, {});
  await rejects(() => stranger.storeWebsite({ domain: "not a domain" }), 401);
});

test("404: an unknown website", async () => {
  await rejects(() => api.showWebsite(987654321), 404);
  await rejects(() => api.updateWebsite(987654321, { email: 1 }), 404);
  await rejects(() => api.deleteWebsite(987654321), 404);
  await rejects(() => api.listStats(987654321, { name: "page", from: day, to: day }), 404);
});

test("422: the field errors", async () => {
  let err = await rejects(() => api.storeWebsite({ domain: "exa mple.com" }), 422);
  assert.deepEqual(Object.keys(err.errors), ["domain"]);

  err = await rejects(() => api.storeWebsite({ domain: "private.example", privacy: 2 }), 422);
  assert.deepEqual(Object.keys(err.errors), ["password"]);

  const w = await api.storeWebsite({ domain: "refusals.example" });
  err = await rejects(() => api.patchWebsite(w.id, { exclude_ips: "10.0.0.1\nnot-an-ip" }), 422);
  assert.deepEqual(Object.keys(err.errors), ["exclude_ips"]);

  err = await rejects(() => api.listStats(w.id, { name: "page", from: "2026-02-02", to: "2026-02-01" }), 422);
  assert.deepEqual(Object.keys(err.errors), ["to"]);
  await api.deleteWebsite(w.id);
});

test("paging websites to the last page", async () => {
  const made: Website[] = [];
  for (let i = 1; i <= 12; i++) {
    made.push(await api.storeWebsite({ domain: `page-${String(i).padStart(2, "0")}.example` }));
  }
  const query = { search: "page-", sort_by: "domain", sort: "asc", per_page: 10 } as const;
  const first = await api.listWebsites(query);
  assert.deepEqual(first.meta, { current_page: 1, per_page: 10, total: 12, last_page: 2, from: 1, to: 10 });
  assert.equal(first.links.prev, null);
  assert.ok(first.links.next);

  const last = await api.listWebsites({ ...query, page: first.meta.last_page });
  assert.deepEqual(last.data.map((w) => w.domain), ["page-11.example", "page-12.example"]);
  assert.equal(last.links.next, null);
  assert.deepEqual([last.meta.from, last.meta.to], [11, 12]);

  const past = await api.listWebsites({ ...query, page: 3 });
  assert.deepEqual(past.data, []);
  assert.deepEqual([past.meta.from, past.meta.to], [null, null]);

  const all: string[] = [];
  for await (const w of api.websites(query)) all.push(w.domain);
  assert.deepEqual(all, made.map((w) => w.domain));
});

test("stats: hits sent to the collection endpoint, paged to the last page", async () => {
  const site = await api.storeWebsite({ domain: "stats.example", exclude_bots: 0 });
  const pages = Array.from({ length: 12 }, (_, i) => `/p${String(i + 1).padStart(2, "0")}`);
  for (const path of pages) {
    const { response } = await api.client.POST("/api/event", {
      body: { page: `https://stats.example${path}`, referrer: "https://search.example/" },
    });
    assert.equal(response.status, 202);
  }
  // The service writes counters every flush interval; wait until all 12 hits are in.
  const query = { name: "page", from: day, to: day, per_page: 10 } as const;
  const deadline = Date.now() + 10_000;
  let first = await api.listStats(site.id, query);
  while (first.meta.total < 12) {
    assert.ok(Date.now() < deadline, `stats not written: ${JSON.stringify(first.meta)}`);
    await new Promise((r) => setTimeout(r, 50));
    first = await api.listStats(site.id, query);
  }
  // Equal counts: ties break by value, ascending.
  assert.deepEqual(first.data.map((e) => e.value), pages.slice(0, 10));
  assert.deepEqual(first.meta, { current_page: 1, per_page: 10, total: 12, last_page: 2, from: 1, to: 10 });
  const last = await api.listStats(site.id, { ...query, page: first.meta.last_page });
  assert.deepEqual(last.data, [
    { value: "/p11", count: 1, time_on_page: null, scroll_depth: null },
    { value: "/p12", count: 1, time_on_page: null, scroll_depth: null },
  ]);
  assert.equal(last.links.next, null);
  const all: string[] = [];
  for await (const e of api.stats(site.id, query)) all.push(e.value);
  assert.deepEqual(all, pages);

  // One client sent the 12 pageviews within minutes: one visit, whose referrer counts once.
  const referrers = await api.listStats(site.id, { name: "referrer", from: day, to: day });
  assert.deepEqual(referrers.data, [{ value: "search.example", count: 1, time_on_page: null, scroll_depth: null }]);

  // The summary, the time series and the realtime view, through the typed client.
  const path = { website_id: site.id };
  const summary = await api.client.GET("/api/v1/stats/{website_id}/summary", { params: { path, query: { from: day, to: day } } });
  assert.equal(summary.response.status, 200);
  assert.equal(summary.data?.data.pageviews, 12);
  const series = await api.client.GET("/api/v1/stats/{website_id}/timeseries", {
    params: { path, query: { from: day, to: day, interval: "hour", per_page: 24 } },
  });
  assert.equal(series.response.status, 200);
  assert.equal(series.data?.data.length, 24);
  const days = await api.client.GET("/api/v1/stats/{website_id}/timeseries", { params: { path, query: { from: day, to: day } } });
  assert.deepEqual(days.data?.data.map((e) => [e.date, e.pageviews]), [[day, 12]]);
  const tooLong = await api.client.GET("/api/v1/stats/{website_id}/timeseries", {
    params: { path, query: { from: "2026-01-01", to: "2026-02-01", interval: "hour" } },
  });
  assert.equal(tooLong.response.status, 422);
  assert.deepEqual(Object.keys(tooLong.error?.errors ?? {}), ["interval"]);
  const realtime = await api.client.GET("/api/v1/stats/{website_id}/realtime", { params: { path } });
  assert.equal(realtime.response.status, 200);
  assert.equal(realtime.data?.data.pageviews.length, 30);

  // The query API over the same visit: its 12 pageviews by page, and a refusal in Plausible's body.
  // (A visit's pages reach the visit rows over the flushes after its counters: some of them.)
  const byPage = await api.client.POST("/api/v2/query", {
    body: { site_id: "stats.example", metrics: ["pageviews"], date_range: [day, day], dimensions: ["event:page"] },
  });
  assert.equal(byPage.response.status, 200);
  for (const r of byPage.data?.results ?? []) {
    assert.ok(pages.includes(r.dimensions[0] ?? ""), JSON.stringify(r));
    assert.deepEqual(r.metrics, [1]);
  }
  const refused = await api.client.POST("/api/v2/query", { body: { site_id: "stats.example", metrics: ["visitors"], date_range: "8d" } });
  assert.equal(refused.response.status, 400);
  assert.match(refused.error?.error ?? "", /8d/);

  // Plausible's Stats API v1 over the same website, by its domain.
  const site_id = "stats.example";
  const agg = await api.client.GET("/api/v1/stats/aggregate", {
    params: { query: { site_id, period: "custom", date: `${day},${day}`, metrics: "visitors,pageviews" } },
  });
  assert.equal(agg.response.status, 200);
  assert.equal(agg.data?.results.pageviews?.value, 12);
  const ts = await api.client.GET("/api/v1/stats/timeseries", { params: { query: { site_id, period: "7d", date: day } } });
  assert.equal(ts.data?.results.length, 7);
  const bd = await api.client.GET("/api/v1/stats/breakdown", { params: { query: { site_id, property: "event:page", limit: "0" } } });
  assert.equal(bd.response.status, 400);
  assert.equal(bd.error?.error, "Please provide limit as a number between 1 and 1000.");
  const rt = await api.client.GET("/api/v1/stats/realtime/visitors", { params: { query: { site_id } } });
  assert.equal(rt.response.status, 200);
  assert.equal(typeof rt.data, "number");
});

test("Plausible's Sites API: sites, shared links, goals, custom properties, guests", async () => {
  const site_id = "sdk-sites.example";
  const made = await api.client.POST("/api/v1/sites", { body: { domain: site_id } });
  assert.equal(made.response.status, 200);
  assert.equal(made.data?.domain, site_id);
  const list = await api.client.GET("/api/v1/sites", { params: { query: { limit: 1000 } } });
  assert.ok(list.data?.sites.some((s) => s.domain === site_id));
  const got = await api.client.GET("/api/v1/sites/{site_id}", { params: { path: { site_id } } });
  assert.equal(got.data?.timezone, "UTC");
  const upd = await api.client.PUT("/api/v1/sites/{site_id}", { params: { path: { site_id } }, body: { domain: "elsewhere.example" } });
  assert.equal(upd.response.status, 400);
  assert.match(upd.error?.error ?? "", /^domain: /);
  const link = await api.client.PUT("/api/v1/sites/shared-links", { body: { site_id, name: "Embed" } });
  assert.match(link.data?.url ?? "", /\/share\/sdk-sites\.example\?auth=/);
  const goal = await api.client.PUT("/api/v1/sites/goals", { body: { site_id, goal_type: "page", page_path: "/pricing" } });
  assert.equal(goal.data?.display_name, "Visit /pricing");
  const goals = await api.client.GET("/api/v1/sites/goals", { params: { query: { site_id } } });
  assert.equal(goals.data?.goals.length, 1);
  const delGoal = await api.client.DELETE("/api/v1/sites/goals/{goal_id}", { params: { path: { goal_id: String(goal.data?.id) }, query: { site_id } } });
  assert.equal(delGoal.data?.deleted, true);
  const prop = await api.client.PUT("/api/v1/sites/custom-props", { body: { site_id, property: "author" } });
  assert.equal(prop.data?.created, true);
  const props = await api.client.GET("/api/v1/sites/custom-props", { params: { query: { site_id } } });
  assert.deepEqual(props.data?.custom_properties, [{ property: "author" }]);
  const delProp = await api.client.DELETE("/api/v1/sites/custom-props/{property}", { params: { path: { property: "author" }, query: { site_id } } });
  assert.equal(delProp.data?.deleted, true);
  const guest = await api.client.PUT("/api/v1/sites/guests", { body: { site_id, email: "nope", role: "viewer" } });
  assert.equal(guest.response.status, 400);
  const invited = await api.client.PUT("/api/v1/sites/guests", { body: { site_id, email: "g@example.com", role: "viewer" } });
  assert.equal(invited.data?.status, "invited");
  const guests = await api.client.GET("/api/v1/sites/guests", { params: { query: { site_id } } });
  assert.equal(guests.data?.guests.length, 1);
  const delGuest = await api.client.DELETE("/api/v1/sites/guests/{email}", { params: { path: { email: "g@example.com" }, query: { site_id } } });
  assert.equal(delGuest.data?.deleted, true);
  const gone = await api.client.DELETE("/api/v1/sites/{site_id}", { params: { path: { site_id } } });
  assert.equal(gone.data?.deleted, true);
  const again = await api.client.GET("/api/v1/sites/{site_id}", { params: { path: { site_id } } });
  assert.equal(again.response.status, 404);
  assert.equal(again.error?.error, "Site could not be found");
});

test("the spec, the docs, and the routes outside /api/v1", async () => {
  assert.match(await api.openAPI(), /^openapi: 3\.0\.3/);
  assert.match(await api.docs(), /<!DOCTYPE html>/i);

  const bad = await api.client.POST("/api/event", { body: { page: "not a url" } });
  assert.equal(bad.response.status, 400);
  assert.equal(bad.error?.status, 400);
  // A host no website has looks accepted: nobody can ask whether a domain is tracked here.
  const unknown = await api.client.POST("/api/event", { body: { page: "https://unknown.example/" } });
  assert.equal(unknown.response.status, 202);
  assert.equal(unknown.error, undefined);
  const preflight = await api.client.OPTIONS("/api/event", {});
  assert.equal(preflight.response.status, 204);

  const script = await api.client.GET("/js/script.js", { parseAs: "text" });
  assert.match(script.data ?? "", /sendBeacon/);
  assert.deepEqual((await api.client.GET("/healthz")).data, { status: "ok" });
  assert.deepEqual((await api.client.GET("/readyz")).data, { status: "ok" });
  assert.deepEqual((await api.client.GET("/readyz/collect")).data, { status: "ok" });
  assert.deepEqual((await api.client.GET("/api/health")).data, { postgres: "ok" });
  assert.ok((await api.client.GET("/api/docs/query/schema.json")).data?.properties?.metrics);
  const metrics = await api.client.GET("/metrics", { parseAs: "text" });
  assert.match(metrics.data ?? "", /analytics_events_accepted_total/);

  // HEAD answers as GET does, without the body.
  const specHead = await api.client.HEAD("/api/v1/openapi.yaml", { parseAs: "text" });
  assert.equal(specHead.response.status, 200);
  assert.equal(specHead.response.headers.get("Content-Type"), "application/yaml");
  assert.ok(!specHead.data, "a body on HEAD");
  assert.equal(Number(specHead.response.headers.get("Content-Length")), (await api.openAPI()).length);
  for (const path of ["/js/script.js", "/api/v1/docs", "/healthz", "/readyz", "/readyz/collect", "/metrics"] as const) {
    const head = await api.client.HEAD(path, { parseAs: "text" });
    assert.equal(head.response.status, 200, path);
  }
});
