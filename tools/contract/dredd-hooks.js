// Dredd hooks of `make contract` (scripts/contract.sh). Dredd makes one request per declared
// response, from the spec's examples; these hooks make each request the one that gets that
// response from the real server, and skip the responses no request can cause on demand.
// The environment gives the API key and the seeded websites: CONTRACT_API_KEY,
// CONTRACT_WEBSITE_ID (kept, its domain CONTRACT_WEBSITE_DOMAIN), CONTRACT_DELETE_ID (deleted
// by DELETE's 200), CONTRACT_GOAL_ID and CONTRACT_FUNNEL_ID (a goal and a funnel of the kept
// website, deleted likewise), CONTRACT_KEPT_FUNNEL_ID (read) and CONTRACT_STEP_A/B (two goals
// of the kept website that funnels are made of), CONTRACT_VIEWER_KEY (a viewer of the kept
// website, whose changes are refused with 403), CONTRACT_STATS_KEY (a stats:read key of the
// same user, refused any change with 403), CONTRACT_SEGMENT_ID and CONTRACT_ANNOTATION_ID (a
// site-wide segment and annotation of the kept website, deleted by DELETE's 200),
// CONTRACT_KEPT_SEGMENT_ID and CONTRACT_KEPT_ANNOTATION_ID (changed by PATCH, and the ones the
// viewer's 403s try), CONTRACT_SITES_DELETE_DOMAIN (a site the Sites
// API's DELETE removes) and CONTRACT_SITES_GOAL_IDS (goals of the kept website, one for each
// of its goal DELETE's 200s: one sends JSON, one a form).
const hooks = require('hooks');

const key = process.env.CONTRACT_API_KEY;
const viewerKey = process.env.CONTRACT_VIEWER_KEY;
const statsKey = process.env.CONTRACT_STATS_KEY; // a stats:read key, refused any change
const websiteId = process.env.CONTRACT_WEBSITE_ID;
const deleteId = process.env.CONTRACT_DELETE_ID;
const goalId = process.env.CONTRACT_GOAL_ID;
const funnelId = process.env.CONTRACT_FUNNEL_ID;
const keptFunnelId = process.env.CONTRACT_KEPT_FUNNEL_ID;
const steps = [process.env.CONTRACT_STEP_A, process.env.CONTRACT_STEP_B];
const segmentId = process.env.CONTRACT_SEGMENT_ID;
const keptSegmentId = process.env.CONTRACT_KEPT_SEGMENT_ID;
const annotationId = process.env.CONTRACT_ANNOTATION_ID;
const keptAnnotationId = process.env.CONTRACT_KEPT_ANNOTATION_ID;
// The segments' and annotations' changes: Dredd sends their forms empty, so each is made
// here (site-wide, which a viewer may not make: the 403s).
const pinnedForms = {
  'POST /api/v1/websites/{id}/segments': () => ({ name: `Dredd ${Date.now()}`, type: 'site', filters: '[["is", "visit:country", ["DE"]]]' }),
  'PATCH /api/v1/websites/{id}/segments/{segment_id}': () => ({ name: `Dredd ${Date.now()}` }),
  'POST /api/v1/websites/{id}/annotations': () => ({ date: '2026-03-10', note: `Dredd ${Date.now()}`, type: 'site' }),
  'PATCH /api/v1/websites/{id}/annotations/{annotation_id}': () => ({ note: `Dredd ${Date.now()}` }),
};
const websiteDomain = process.env.CONTRACT_WEBSITE_DOMAIN;
const unknownId = '987654321';
// The spec's examples use the website id 7.
const exampleId = /^(\/api\/v1\/(?:websites|stats))\/7(?=$|[/?])/;

// No request can cause these on demand: rate limits are off in the contract run (every request
// would have to be sent twice), and a 500 or 503 needs a failing database or a full buffer. The
// Go tests cover each of them.
const uncaused = new Set([429, 500, 503]);

// Dredd writes a deepObject parameter's example as plain NAME=VALUE pairs (country=DE:Germany),
// which the stats endpoints refuse or read as another parameter (page). Each example is
// rewritten as the parameter it belongs to: filter[country]=DE:Germany.
const deepObjectExamples = [
  ['filter', 'country', 'DE:Germany'],
  ['filter_any', 'country', 'DE|FR'],
  ['filter_not', 'referrer', 'www.google.com'],
  ['filter_contains', 'page', '/blog/'],
  ['filter_contains_not', 'page', '/admin'],
];
const withDeepObjects = (uri) => {
  const [path, query] = uri.split('?');
  if (query === undefined) return uri;
  const params = new URLSearchParams(query);
  const out = new URLSearchParams();
  const found = deepObjectExamples.filter(([, key, value]) => params.getAll(key).includes(value));
  for (const [key, value] of params) {
    if (!found.some(([, k, v]) => k === key && v === value)) out.append(key, value);
  }
  for (const [name, key, value] of found) out.append(`${name}[${key}]`, value);
  return `${path}?${out.toString()}`;
};

// A JSON body with one member changed.
const jsonWith = (body, member, value) => JSON.stringify({ ...JSON.parse(body || '{}'), [member]: value });

const skip = (transaction, why) => {
  transaction.skip = true;
  hooks.log(`skip ${transaction.name}: ${why}`);
};

// Dredd sends a form's example object as JSON text: it becomes the form it stands for.
const formWith = (body, field, value) => {
  const text = (body || '').trim();
  const form = new URLSearchParams(text.startsWith('{') ? JSON.parse(text) : text);
  form.set(field, value);
  return form.toString();
};

// Plausible's Sites API (/api/v1/sites...). Its examples name example.com, the goal 1, the
// property author and the guest alice@example.com: each becomes the kept website (its seeded
// property, shared link and guest), a goal seeded to be deleted, and a property and a guest
// seeded for Dredd to remove. Dredd sends these bodies empty (the schemas have no examples),
// so each is built here, as JSON or as a form as the transaction's Content-Type says.
const sitesAPIPrefix = '/api/v1/sites';
const sitesDeleteDomain = process.env.CONTRACT_SITES_DELETE_DOMAIN;
const sitesGoalIds = process.env.CONTRACT_SITES_GOAL_IDS.split(',');
const [sitesGoalId] = sitesGoalIds; // what the refusals name
let sitesMade = 0;
const sitesOp = (method, path) => `${method} ${path
  .replace(/^\/api\/v1\/sites\/goals\/[^/]+$/, '/api/v1/sites/goals/{goal_id}')
  .replace(/^\/api\/v1\/sites\/custom-props\/[^/]+$/, '/api/v1/sites/custom-props/{property}')
  .replace(/^\/api\/v1\/sites\/guests\/[^/]+$/, '/api/v1/sites/guests/{email}')
  .replace(/^\/api\/v1\/sites\/(?!goals$|custom-props$|guests$|shared-links$)[^/]+$/, '/api/v1/sites/{site_id}')}`;
// The body of each change that gets its 200, and the one change that gets its 400.
const sitesBodies = {
  'POST /api/v1/sites': () => ({ domain: `dredd-${Date.now()}-${++sitesMade}.example`, timezone: 'Europe/London' }),
  'PUT /api/v1/sites/{site_id}': () => ({ domain: websiteDomain }),
  'PUT /api/v1/sites/shared-links': () => ({ name: 'WordPress' }),
  'PUT /api/v1/sites/goals': () => ({ goal_type: 'event', event_name: 'Signup' }),
  'PUT /api/v1/sites/custom-props': () => ({ property: 'author' }),
  'PUT /api/v1/sites/guests': () => ({ email: 'alice@example.com', role: 'viewer' }),
};
const sitesRefused = {
  'POST /api/v1/sites': { domain: 'not a domain' },
  'PUT /api/v1/sites/{site_id}': { domain: 'other.example' }, // a domain does not change
  'PUT /api/v1/sites/shared-links': { name: ' ' },
  'PUT /api/v1/sites/goals': { goal_type: 'visit' },
  'PUT /api/v1/sites/custom-props': { property: 'p'.repeat(301) },
  'PUT /api/v1/sites/guests': { email: 'alice@example.com', role: 'admin' },
};
const sitesRequest = (req, status) => {
  const op = sitesOp(req.method, req.uri.split('?')[0]);
  const domain = status === 404 ? 'unknown.contract.example'
    : op === 'DELETE /api/v1/sites/{site_id}' && status === 200 ? sitesDeleteDomain : websiteDomain;
  const [path, query] = req.uri.split('?');
  const params = new URLSearchParams(query || '');
  if (params.has('site_id')) params.set('site_id', domain);
  let p = path;
  if (op.endsWith('{site_id}')) p = `/api/v1/sites/${encodeURIComponent(domain)}`;
  if (op.endsWith('{goal_id}')) p = `/api/v1/sites/goals/${status === 200 ? sitesGoalIds.shift() : sitesGoalId}`;
  if (op.endsWith('{property}') && status === 200) p = '/api/v1/sites/custom-props/dredd_deletes';
  if (op.endsWith('{email}') && status === 200) p = `/api/v1/sites/guests/${encodeURIComponent('dredd-guest@example.com')}`;
  let body = sitesBodies[op] ? sitesBodies[op]() : undefined;
  switch (status) {
    case 400:
      if (sitesRefused[op]) body = sitesRefused[op];
      else if (params.has('limit')) params.set('limit', '1001'); // past Plausible's 1,000
      else params.delete('site_id'); // the site named nowhere
      break;
    case 403: // a stats:read key reaches no Sites API call; a viewer changes nothing
      req.headers.Authorization = `Bearer ${req.method === 'GET' || op === 'POST /api/v1/sites' ? statsKey : viewerKey}`;
      break;
    case 401:
      delete req.headers.Authorization;
      break;
    case 415:
      req.headers['Content-Type'] = 'text/plain';
      break;
    default:
  }
  if (body !== undefined) {
    req.body = /json/.test(req.headers['Content-Type'] || '') ? JSON.stringify(body) : new URLSearchParams(body).toString();
  }
  const q = params.toString();
  req.uri = q ? `${p}?${q}` : p;
};

hooks.beforeEach((transaction, done) => {
  const req = transaction.request;
  const status = Number(transaction.expected.statusCode);
  const path = req.uri.split('?')[0];
  const op = `${req.method} ${path.replace(exampleId, '$1/{id}')}`
    .replace(/\/segments\/3$/, '/segments/{segment_id}').replace(/\/annotations\/4$/, '/annotations/{annotation_id}');
  if (req.method === 'HEAD') {
    // Dredd 14 passes a body (even an empty one) with every request, and its HTTP library
    // throws "HTTP HEAD requests MUST NOT include a request body.": Portman tests HEAD.
    skip(transaction, 'Dredd cannot send HEAD');
    return done();
  }
  if (uncaused.has(status)) {
    skip(transaction, `no request causes a ${status} on demand`);
    return done();
  }
  req.headers.Authorization = `Bearer ${key}`;
  if (path === sitesAPIPrefix || path.startsWith(`${sitesAPIPrefix}/`)) {
    sitesRequest(req, status);
    transaction.fullPath = req.uri;
    return done();
  }
  const id = status === 404 ? unknownId : op === 'DELETE /api/v1/websites/{id}' && status !== 403 ? deleteId : websiteId;
  req.uri = withDeepObjects(req.uri.replace(exampleId, `$1/${id}`).replace(/\/goals\/4$/, `/goals/${goalId}`)
    .replace(/\/websites\/(\d+)\/funnels\/2$/, `/websites/$1/funnels/${funnelId}`)
    .replace(/\/stats\/(\d+)\/funnels\/2(?=$|\?)/, `/stats/$1/funnels/${keptFunnelId}`)
    // The DELETE's 200 removes one; every other request names the kept one.
    .replace(/\/segments\/3$/, `/segments/${req.method === 'DELETE' && status === 200 ? segmentId : keptSegmentId}`)
    .replace(/\/annotations\/4$/, `/annotations/${req.method === 'DELETE' && status === 200 ? annotationId : keptAnnotationId}`));
  if (pinnedForms[op]) {
    req.body = new URLSearchParams(pinnedForms[op]()).toString();
  }
  const plausibleV1 = path.startsWith('/api/v1/stats/') && !/^\/api\/v1\/stats\/\d/.test(path);
  if (plausibleV1) { // Plausible's v1 names the website by its domain
    req.uri = req.uri.replace(/site_id=[^&]*/, `site_id=${encodeURIComponent(websiteDomain)}`);
  }
  if (req.uri.includes('compare_from=') && !req.uri.includes('comparison=custom')) {
    // The examples give every comparison parameter at once; the dates go with custom only.
    const [p, q] = req.uri.split('?');
    const params = new URLSearchParams(q);
    params.delete('compare_from');
    params.delete('compare_to');
    req.uri = `${p}?${params.toString()}`;
  }
  if (op === 'PUT /api/v1/websites/{id}/alerts' || op === 'POST /api/v1/websites/{id}/reset') {
    // Dredd sends these forms' examples as JSON text; the reset confirms the kept website.
    req.body = op.startsWith('PUT')
      ? formWith(req.body, 'addresses', 'ops@example.com')
      : formWith(req.body, 'confirm', websiteDomain);
  }
  if (path === '/api/v2/query') {
    // The answer's example has meta.total_rows, which comes with include.total_rows.
    req.body = jsonWith(jsonWith(req.body, 'site_id', websiteDomain), 'include', { total_rows: true });
  }
  if (op === 'POST /api/v1/websites/{id}/funnels') {
    // A funnel's name is unique in a website; its steps are the form's field repeated.
    const form = new URLSearchParams({ name: `Dredd ${Date.now()}` });
    for (const step of steps) form.append('steps', step);
    req.body = form.toString();
  }
  if (op === 'POST /api/v1/websites/{id}/goals') {
    // Dredd sends this form empty. Display names are unique in a website: Portman adds one too.
    req.body = formWith(formWith(req.body, 'kind', 'event'), 'event', `Dredd ${Date.now()}`);
  }

  switch (status) {
    case 201: // a new website each run: domains are unique across all users
      if (op === 'POST /api/v1/websites') req.body = formWith(req.body, 'domain', `dredd-${Date.now()}.example`);
      break;
    case 304: // the ETag of the representation asked for, fetched first
      req.headers['Accept-Encoding'] = 'identity';
      fetch(`${transaction.protocol}//${transaction.host}:${transaction.port}${req.uri}`, {
        method: 'HEAD', headers: { 'Accept-Encoding': 'identity' },
      }).then((res) => {
        req.headers['If-None-Match'] = res.headers.get('ETag');
        transaction.fullPath = req.uri;
        done();
      }, done);
      return;
    case 400:
      if (path === '/api/v2/query') {
        req.body = jsonWith(req.body, 'metrics', ['colour']);
      } else if (plausibleV1) { // a site_id missing
        req.uri = req.uri.replace(/site_id=[^&]*&?/, '');
      } else { // the collector: page is not an absolute http(s) URL
        req.body = JSON.stringify({ page: '/relative' });
      }
      break;
    case 401:
      delete req.headers.Authorization;
      break;
    case 403:
      if (op === 'POST /api/v1/websites') { // a stats:read key adds no website
        req.headers.Authorization = `Bearer ${statsKey}`;
      } else if (path.startsWith('/api/v1/')) { // a change of the kept website by its viewer
        req.headers.Authorization = `Bearer ${viewerKey}`;
      } else { // /metrics from a stranger: the run trusts loopback as a proxy (scripts/contract.sh)
        req.headers['X-Forwarded-For'] = '203.0.113.9';
      }
      break;
    case 413:
      if (path === '/api/event') {
        req.body = JSON.stringify({ page: 'https://example.com/', referrer: 'r'.repeat(17 * 1024) });
      } else {
        req.body = formWith(req.body, 'exclude_params', 'p'.repeat(70 * 1024));
      }
      break;
    case 415:
      req.headers['Content-Type'] = 'text/plain';
      break;
    case 422:
      switch (op) {
        case 'GET /api/v1/websites':
          req.uri += `${req.uri.includes('?') ? '&' : '?'}per_page=7`;
          break;
        case 'POST /api/v1/websites':
          req.body = formWith(req.body, 'domain', 'not a domain');
          break;
        case 'PUT /api/v1/websites/{id}':
        case 'PATCH /api/v1/websites/{id}':
          req.body = formWith(req.body, 'domain', 'other.example');
          break;
        case 'POST /api/v1/websites/{id}/goals':
          // The example refuses a pattern that does not start with /.
          req.body = new URLSearchParams({ kind: 'pageview', page: 'pricing' }).toString();
          break;
        case 'GET /api/v1/websites/{id}/segments':
        case 'GET /api/v1/websites/{id}/annotations':
          req.uri += `${req.uri.includes('?') ? '&' : '?'}per_page=7`;
          break;
        case 'POST /api/v1/websites/{id}/segments': // the example: a filter the query API refuses
        case 'PATCH /api/v1/websites/{id}/segments/{segment_id}':
          req.body = formWith(req.body, 'filters', '[["is", "visit:nothing", ["a"]]]');
          break;
        case 'POST /api/v1/websites/{id}/annotations': // the example: a note over 300 characters
        case 'PATCH /api/v1/websites/{id}/annotations/{annotation_id}':
          req.body = formWith(req.body, 'note', 'x'.repeat(301));
          break;
        case 'POST /api/v1/websites/{id}/funnels': // the example: one step only
          req.body = new URLSearchParams({ name: 'One step', steps: steps[0] }).toString();
          break;
        case 'GET /api/v1/stats/{id}':
        case 'GET /api/v1/stats/{id}/goals':
        case 'GET /api/v1/stats/{id}/properties':
        case 'GET /api/v1/stats/{id}/revenue':
          req.uri = req.uri.replace(/from=[^&]*/, 'from=2026-02-01').replace(/to=[^&]*/, 'to=2026-01-01');
          break;
        default:
          if (op.startsWith('GET /api/v1/stats/{id}/funnels/')) { // to before from
            req.uri = req.uri.replace(/from=[^&]*/, 'from=2026-02-01').replace(/to=[^&]*/, 'to=2026-01-01');
          } else {
            skip(transaction, `no 422 known for ${op}`);
          }
      }
      break;
    default:
  }
  transaction.fullPath = req.uri; // what Dredd requests; request.uri is only shown
  done();
});

// A text body (the script, the docs page, the spec, the metrics) is `type: string`: any text
// is valid, but Dredd compares it with the example byte for byte. And Dredd matches
// Content-Type exactly, where the spec's media type allows parameters (charset, version).
hooks.beforeEachValidation((transaction, done) => {
  const expected = transaction.expected.headers || {};
  const real = transaction.real.headers || {};
  const want = expected['Content-Type'] || expected['content-type'];
  const got = real['content-type'];
  if (want && got && got.split(';')[0].trim() === want) {
    real['content-type'] = want;
  }
  if (want && !/json/.test(want)) {
    transaction.expected.body = transaction.real.body;
  }
  done();
});
