// Filters through the SDK against a running server on real PostgreSQL. The Go test
// TestTypeScriptSDKFilters (handlers/filters_test.go) starts the server, writes visits for a
// website, counts in Go what each question below must answer, and runs `node --test` here with:
//   ANALYTICS_BASE_URL, ANALYTICS_API_KEY  as for client.test.ts
//   ANALYTICS_WEBSITE_ID                    the website whose visits were written
//   ANALYTICS_EXPECT                        the answers, as JSON (see filtersExpected there)
// openapi-fetch sends an object parameter as deepObject: filter[NAME]=VALUE.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Analytics, type StatEntry, type StatsFilter } from "../src/index.js";

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this through handlers/filters_test.go (make test)`);
  return v;
}

interface Expected {
  filter: StatsFilter;
  from: string;
  to: string;
  pages: StatEntry[];
  summary: Record<string, number>;
  year: { from: string; to: string; sampled: number; filtered_from: string };
}

const api = new Analytics({ baseUrl: env("ANALYTICS_BASE_URL"), apiKey: env("ANALYTICS_API_KEY") });
const websiteId = Number(env("ANALYTICS_WEBSITE_ID"));
const want = JSON.parse(env("ANALYTICS_EXPECT")) as Expected;
const path = { website_id: websiteId };

test("filters: the stats list, the summary and the time series of the matching visits", async () => {
  const { filter, from, to } = want;
  const list = await api.listStats(websiteId, { name: "page", from, to, per_page: 100, filter });
  assert.deepEqual(list.data, want.pages);
  assert.equal(list.meta.sampled, undefined, "31 days are exact");
  assert.equal(list.meta.filtered_from, undefined);
  assert.match(list.links.first, /filter%5Bcountry%5D=/, "paging links keep the filters");

  const summary = await api.client.GET("/api/v1/stats/{website_id}/summary", { params: { path, query: { from, to, filter } } });
  assert.equal(summary.response.status, 200);
  assert.deepEqual(summary.data?.data, want.summary);
  assert.equal(summary.data?.meta, undefined);

  // A year: sampled, and the days before the website's filter rows left out.
  const year = want.year;
  const yearly = await api.client.GET("/api/v1/stats/{website_id}/summary", {
    params: { path, query: { from: year.from, to: year.to, filter } },
  });
  assert.equal(yearly.data?.data.sampled, year.sampled);
  assert.equal(yearly.data?.meta?.filtered_from, year.filtered_from);
  const months = await api.client.GET("/api/v1/stats/{website_id}/timeseries", {
    params: { path, query: { from: year.from, to: year.to, interval: "month", filter } },
  });
  assert.equal(months.response.status, 200);
  assert.ok((months.data?.data.length ?? 0) >= 12);
  for (const m of months.data?.data ?? []) assert.equal(m.sampled, year.sampled, m.date);
  assert.equal(months.data?.meta.filtered_from, year.filtered_from);
});

test("filters: a value nobody has is no error; a value over 255 characters is a 422 on filter", async () => {
  const none = await api.listStats(websiteId, { name: "page", from: want.from, to: want.to, filter: { country: "ZZ:Nowhere" } });
  assert.deepEqual(none.data, []);
  assert.equal(none.meta.total, 0);

  const tooLong = await api.client.GET("/api/v1/stats/{website_id}/summary", {
    params: { path, query: { from: want.from, to: want.to, filter: { page: "/".repeat(256) } } },
  });
  assert.equal(tooLong.response.status, 422);
  assert.deepEqual(Object.keys(tooLong.error?.errors ?? {}), ["filter"]);
});
