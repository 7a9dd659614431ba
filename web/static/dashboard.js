// The dashboard's script, loaded by dashboard.html alone. The page works without it: every
// control is a link or a form. It adds the graph's tip on hover, links that change the view
// without a reload (data-swap: the cards, the interval switch, the boxes' tabs), Plausible's
// keyboard shortcuts (data-key) and the Filter dialog's extra value fields.
"use strict";
(function () {
  var main = function () { return document.querySelector("main"); };

  // The graph's tip: a point's <title> (its bucket, value and the comparison's) moves into
  // the tip beside a marker, so the browser's own tooltip does not show it twice.
  var hideTip = function (box) {
    box.querySelector(".graph-tip").hidden = true;
    box.querySelectorAll(".mark, .mark-line").forEach(function (m) { m.remove(); });
  };
  document.addEventListener("mouseover", function (e) {
    var slot = e.target.closest && e.target.closest("rect.slot");
    var box = slot && slot.closest(".graph-box");
    document.querySelectorAll(".graph-box").forEach(function (b) { if (b !== box) hideTip(b); });
    if (!box) return;
    var title = slot.querySelector("title");
    if (title) { slot.setAttribute("data-tip", title.textContent); title.remove(); }
    var svg = slot.ownerSVGElement, tip = box.querySelector(".graph-tip");
    var parts = slot.getAttribute("data-tip").split("; compared with ");
    var head = parts[0].split(": ");
    tip.textContent = "";
    var strong = document.createElement("strong");
    strong.textContent = head[0];
    tip.append(strong, head.slice(1).join(": "));
    if (parts[1]) {
      var cmp = document.createElement("div");
      cmp.className = "muted";
      cmp.textContent = "vs. " + parts[1];
      tip.append(cmp);
    }
    tip.hidden = false;
    box.querySelectorAll(".mark, .mark-line").forEach(function (m) { m.remove(); });
    var x = slot.getAttribute("data-x"), y = slot.getAttribute("data-y");
    var ns = "http://www.w3.org/2000/svg";
    var line = document.createElementNS(ns, "line");
    line.setAttribute("class", "mark-line");
    line.setAttribute("x1", x); line.setAttribute("x2", x);
    line.setAttribute("y1", 0); line.setAttribute("y2", slot.getAttribute("height"));
    svg.insertBefore(line, svg.querySelector("rect.slot"));
    if (y) {
      var dot = document.createElementNS(ns, "circle");
      dot.setAttribute("class", "mark");
      dot.setAttribute("cx", x); dot.setAttribute("cy", y); dot.setAttribute("r", 4);
      svg.insertBefore(dot, svg.querySelector("rect.slot"));
    }
    var scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    var px = x * scale, width = box.clientWidth;
    tip.style.left = (px + 12 + tip.offsetWidth > width ? Math.max(0, px - 12 - tip.offsetWidth) : px + 12) + "px";
  });

  // The period menu closes on a click outside it, as a menu does.
  document.addEventListener("click", function (e) {
    var open = document.querySelector("details.period-menu[open]");
    if (open && !open.contains(e.target)) open.open = false;
  });

  // A link that changes part of the view: fetch its page and put its <main> in place of
  // this one, keeping the scroll and the focus (on the link of the same data-swap name) and
  // the address (history), so that a reload or Back shows the same.
  var swap = function (url, name) {
    var y = window.scrollY;
    return fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (res) { return res.ok ? res.text() : Promise.reject(res.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.querySelector("main");
        if (!fresh) return Promise.reject("no main");
        main().replaceWith(fresh);
        document.title = doc.title;
        history.pushState(null, "", url);
        shown = view();
        window.scrollTo(0, y);
        var again = name && fresh.querySelector('[data-swap="' + name + '"]');
        if (again) again.focus({ preventScroll: true });
        ready(fresh);
      })
      .catch(function () { window.location.href = url; });
  };
  // Back or Forward to another view loads it; a fragment's link ("Skip to content", a box's
  // #id) changes the history entry too, and must not reload the page.
  var view = function () { return location.pathname + location.search; };
  var shown = view();
  window.addEventListener("popstate", function () { if (view() !== shown) window.location.reload(); });
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a[data-swap]");
    if (!a || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey || !window.fetch) return;
    e.preventDefault();
    swap(a.href, a.getAttribute("data-swap"));
  });

  // Plausible's shortcuts: a key chooses the element of the same data-key (an entry of the
  // period menu, an arrow, the next interval, the comparison's switch, clearing the filters).
  // Not while typing in a field, nor with a modifier (the browser's own shortcuts).
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    var dialog = document.querySelector("details.filter-dialog[open]");
    if (e.key === "Escape" && dialog) { dialog.open = false; dialog.querySelector("summary").focus(); return; }
    if (e.target.closest && e.target.closest("input, textarea, select, [contenteditable]")) return;
    var key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (!/^([a-z]|ArrowLeft|ArrowRight|Escape)$/.test(key)) return;
    var open = document.querySelector("details.period-menu[open]");
    if (key === "Escape" && open) { open.open = false; return; }
    var el = main().querySelector('[data-key="' + key + '"]');
    if (!el) return;
    e.preventDefault();
    var href = el.getAttribute("href");
    if (href && href.charAt(0) === "#") { // the custom range: its first field
      if (open) open.open = false;
      var field = document.getElementById(href.slice(1));
      if (field) field.focus();
      return;
    }
    el.click();
  });

  // The Filter dialog: another value field, for several values at once.
  document.addEventListener("click", function (e) {
    var add = e.target.closest && e.target.closest("button.add-value");
    if (!add) return;
    var list = add.closest("form").querySelector(".values");
    var last = list.lastElementChild, copy = last.cloneNode(true);
    var input = copy.querySelector("input"), n = list.children.length;
    input.value = "";
    input.required = false;
    input.id = "dialog-value-" + n;
    copy.querySelector("label").htmlFor = input.id;
    copy.querySelector("label").textContent = "Value " + (n + 1);
    list.append(copy);
    input.focus();
  });
  // The value fields suggest the values of the dimension chosen (those of the lists shown).
  document.addEventListener("change", function (e) {
    if (e.target.id !== "dialog-name") return;
    e.target.form.querySelectorAll("input[name=dialog_value]").forEach(function (i) { i.setAttribute("list", "suggest-" + e.target.value); });
  });
  var ready = function (root) {
    root.querySelectorAll("button.add-value").forEach(function (b) { b.hidden = false; });
  };
  ready(document);
})();
