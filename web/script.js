/* Analytics tracker: sends pageviews and events to POST /api/event; no cookies, no storage. ES5, < 1.5 KB gzipped. */
(function (w, d, n, l) {
  var s = d.currentScript, a = d.getElementsByTagName('script'), i = a.length,
    ps = history.pushState, ref = d.referrer, u, last;
  function nop() {}
  // Old browsers lack currentScript: take the last tag loading this file.
  while (!s && i--) if (/\/js\/script\.js([?#]|$)/.test(a[i].src)) s = a[i];
  // Defined first so that pa.track never throws, even when not tracking.
  w.pa = { track: nop };
  // Not on file:// etc.; nor if the site honours Do Not Track and it is on.
  if (!s || !/^https?:$/.test(l.protocol) || s.getAttribute('data-dnt') == 'true' &&
    /^(1|yes)$/.test(n.doNotTrack || w.doNotTrack || n.msDoNotTrack)) return;
  // No data-host: post to the script's own server.
  u = (s.getAttribute('data-host') || s.src.replace(/\/js\/script\.js.*/, ''))
    .replace(/\/+$/, '') + '/api/event';

  function send(e) {
    var o = { page: l.href, referrer: ref, screen_resolution: screen.width + 'x' + screen.height }, x;
    if (e) o.event = e;
    o = JSON.stringify(o);
    // text/plain needs no CORS preflight. sendBeacon is false when its queue is full.
    if (n.sendBeacon && n.sendBeacon(u, new Blob([o], { type: 'text/plain' }))) return;
    if (w.fetch) return fetch(u, { method: 'POST', body: o, headers: { 'Content-Type': 'text/plain' }, keepalive: true })['catch'](nop);
    x = new XMLHttpRequest();
    x.open('POST', u);
    x.setRequestHeader('Content-Type', 'text/plain');
    x.send(o);
  }

  // One pageview per URL, referrer = the previous pageview's URL. The server
  // drops the fragment, so a #anchor change is not a new page.
  function pageview() {
    var h = l.href;
    if (last && h.split('#')[0] == last.split('#')[0]) return;
    ref = last || d.referrer;
    last = h;
    send();
  }

  w.pa.track = function (o) {
    var e = {}, k = ['name', 'value', 'unit'], j;
    if (!o || o.name == null) return;
    for (j = 0; j < 3; j++) if (o[k[j]] != null) e[k[j]] = '' + o[k[j]];
    send(e);
  };

  // SPA navigation. Not replaceState: it rewrites the current entry.
  if (ps) {
    history.pushState = function () {
      var r = ps.apply(this, arguments);
      pageview();
      return r;
    };
    w.addEventListener('popstate', pageview);
  }
  // A prerendered page counts only once it is shown.
  if (d.prerendering) d.addEventListener('prerenderingchange', pageview);
  else pageview();
})(window, document, navigator, location);
