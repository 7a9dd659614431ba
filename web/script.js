/* Analytics tracker: pageviews, events and engagement to POST /api/event, with the options of its data- attributes (docs/tracker.md); no cookies, no storage. ES5, < 2 KB gzipped as served. */
(function (w, d, n, l, H) {
  var s = d.currentScript, a = d.scripts, i = a.length,
    ps = H.pushState, ref = d.referrer, u, last, hh, ex, files, out,
    // The page engagement is measured for: its URL, engaged ms so far and since when
    // (0: not now), deepest and document height in px, deepest at the last engagement hit.
    eu, et, es, ms, dh, ls;
  function nop() {}
  // Old browsers lack currentScript: take the last tag loading this file.
  while (!s && i--) if (/\/js\/script\.js([?#]|$)/.test(a[i].src)) s = a[i];
  // Defined first so that pa.track never throws, even when not tracking.
  w.pa = { track: nop, pageview: nop };
  function attr(k) { return s.getAttribute('data-' + k); }
  function has(k) { return attr(k) != null; }
  // Whenever nothing is sent, one line in the console says why (a site owner testing wonders).
  function no(m) { console.info('Analytics: nothing sent: ' + m); }
  if (!s) return;
  // Only http(s) pages; not localhost nor file: unless data-local; nor if the site honours Do
  // Not Track and it is on.
  if (!(has('local') ? /^(https?|file):$/ : /^https?:$/).test(l.protocol) ||
    !has('local') && /^localhost$|^127(\.\d+){0,2}\.\d+$|^\[::1?\]$/.test(l.hostname)) return no('local page, no data-local');
  if (attr('dnt') == 'true' && /^(1|yes)$/.test(n.doNotTrack || w.doNotTrack || n.msDoNotTrack)) return no('Do Not Track');
  // No data-host: post to the script's own server.
  u = (attr('host') || s.src.replace(/\/js\/script\.js.*/, '')).replace(/\/+$/, '') + '/api/event';
  hh = has('hash');
  out = has('outbound-links');
  // data-exclude: path patterns, "*" any run of characters, "|" or "," between alternatives.
  if (ex = attr('exclude')) ex = RegExp('^(' + ex.replace(/\s*,\s*/g, '|').replace(/[.+?^${}()[\]\\\/]/g, '\\$&').replace(/\*/g, '.*') + ')$');
  if (has('file-downloads')) {
    files = attr('file-downloads');
    if (!files || files == 'true') files = 'pdf,xlsx,docx,txt,rtf,csv,exe,key,pps,ppt,pptx,7z,pkg,rar,gz,zip,avi,mov,mp4,mpeg,wmv,midi,mp3,wav,wma,dmg';
    files = RegExp('\\.(' + files.replace(/\W*,\W*/g, '|') + ')$', 'i');
  }

  function post(o) {
    o = JSON.stringify(o);
    // text/plain needs no CORS preflight: a string body is sent as text/plain;charset=UTF-8 by
    // fetch and XMLHttpRequest. sendBeacon is false when its queue is full; both it and
    // keepalive outlive the page, so a click never waits for its hit.
    if (n.sendBeacon && n.sendBeacon(u, new Blob([o], { type: 'text/plain' }))) return;
    if (w.fetch) return fetch(u, { method: 'POST', body: o, keepalive: true })['catch'](nop);
    i = new XMLHttpRequest();
    i.open('POST', u);
    i.send(o);
  }

  // A pageview (no e) or event e of the page x.url (else this one), with x's props, revenue
  // and interactive; nothing on an excluded path. True when sent.
  function hit(e, x) {
    var o = { page: x && x.url || l.href, referrer: ref, screen_resolution: screen.width + 'x' + screen.height };
    if (ex && ex.test(l.pathname)) return no('data-exclude');
    if (e) o.event = e;
    if (x) {
      if (x.props) o.props = x.props;
      if (x.revenue) o.revenue = x.revenue;
      if (x.interactive === false) o.interactive = false;
    }
    if (hh) o.hash = true;
    post(o);
    return 1;
  }

  function now() { return es ? et + (new Date - es) : et; }
  // How far down the page the visitor sees, in px; keeps the document's height in dh.
  function seen() {
    var b = d.body || {}, e = d.documentElement || {}, v = w.innerHeight;
    dh = Math.max(b.scrollHeight | 0, b.offsetHeight | 0, e.scrollHeight | 0, e.offsetHeight | 0, e.clientHeight | 0);
    return dh <= v ? dh : w.scrollY + v;
  }
  // The engagement hit of the page eu, as Plausible's tracker sends it: only when the visitor
  // scrolled further, or was engaged 3 s or more, since the last one.
  function engage() {
    var t = now(), o;
    if (eu && (ls < ms || t >= 3000)) {
      ls = ms;
      seen();
      o = { n: 'engagement', u: eu, d: l.hostname, sd: Math.min(100, Math.round(ms / dh * 100) || 0), e: t };
      if (hh) o.h = 1;
      post(o);
      et = es = 0;
    }
  }
  // Engaged while visible and focused; hiding or leaving the page sends engagement.
  function focus() {
    if (d.visibilityState == 'visible' && d.hasFocus()) es = es || +new Date;
    else {
      et = now();
      es = 0;
      engage();
    }
  }

  // One pageview per URL (the fragment counts with data-hash only), referrer = the previous
  // pageview's URL; x is pa.pageview's {url, props}.
  function pageview(x) {
    var h = l.href, k = function (v) { return hh ? v : v.split('#')[0]; }, a;
    if (x && x.url) {
      // Relative URLs as the page would resolve them.
      a = d.createElement('a');
      a.href = x.url;
      h = x.url = a.href;
    } else if (!x && last && k(h) == k(last)) return;
    engage();
    eu = 0;
    ref = last || d.referrer;
    last = h;
    if (hit(0, x)) {
      eu = h;
      ls = -1;
      et = 0;
      es = +new Date;
      ms = seen();
    }
  }

  w.pa.pageview = function (x) { pageview(x || {}); };
  // The listeners' pageview: the current URL, once.
  function again() { pageview(); }
  // pa.track(name, {props, revenue, interactive}), or the first form pa.track({name, value, unit}).
  w.pa.track = function (o, x) {
    var e = {}, k = ['name', 'value', 'unit'], j;
    if (o && typeof o == 'object') {
      if (o.name == null) return;
      for (j = 0; j < 3; j++) if (o[k[j]] != null) e[k[j]] = '' + o[k[j]];
      return hit(e);
    }
    if (o != null) hit({ name: '' + o }, x);
  };

  // Clicks (and middle clicks) on tagged elements, outbound and download links. Nothing is
  // delayed or prevented: the link opens as it would.
  function click(e) {
    var t = e.target, a, g, p = {}, j, m;
    if (e.type == 'auxclick' && e.button != 1) return;
    for (j = 0; t && j < 4; j++, t = t.parentNode) {
      if (!a && /^a$/i.test(t.tagName) && t.href) a = t;
      if (!g && /(^|\s)(pa|plausible)-event-name(=|--)/.test(t.className)) g = t;
    }
    if (g) {
      // pa-event-KEY=VALUE classes are its properties; "+" stands for a space.
      j = g.className.split(/\s+/);
      for (t = 0; t < j.length; t++) if (m = j[t].match(/^(?:pa|plausible)-event-(.+?)(?:=|--)(.+)/)) p[m[1]] = m[2].replace(/\+/g, ' ');
      e = p.name;
      delete p.name;
      if (a) p.url = a.href;
      w.pa.track(e, { props: p });
    } else if (a && /^https?:$/.test(a.protocol)) {
      if (out && a.host != l.host) w.pa.track('Outbound Link: Click', { props: { url: a.href } });
      else if (files && files.test(a.pathname)) w.pa.track('File Download', { props: { url: a.href.split('?')[0] } });
    }
  }
  d.addEventListener('click', click);
  d.addEventListener('auxclick', click);
  if (has('form-submissions')) d.addEventListener('submit', function () { w.pa.track('Form: Submission', { props: { path: l.pathname } }); }, true);
  d.addEventListener('scroll', function () { var v = seen(); if (v > ms) ms = v; });
  d.addEventListener('visibilitychange', focus);
  w.addEventListener('blur', focus);
  w.addEventListener('focus', focus);

  if (has('manual')) return;
  // SPA navigation. Not replaceState: it rewrites the current entry.
  if (ps) {
    H.pushState = function () {
      var r = ps.apply(this, arguments);
      again();
      return r;
    };
    w.addEventListener('popstate', again);
  }
  if (hh) w.addEventListener('hashchange', again);
  // A prerendered page counts only once it is shown.
  if (d.prerendering) d.addEventListener('prerenderingchange', again);
  else pageview();
})(window, document, navigator, location, history);
