// The little JavaScript the stats pages use; every page works without it. Loaded as a file
// (the Content-Security-Policy allows no inline script).
"use strict";

// Copy buttons: <button data-copy="ID"> copies the text of the element with that id.
document.addEventListener("click", function (event) {
  var button = event.target.closest("button[data-copy]");
  if (!button) return;
  var source = document.getElementById(button.getAttribute("data-copy"));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent).then(function () {
    var label = button.textContent;
    button.textContent = "Copied";
    setTimeout(function () { button.textContent = label; }, 1500);
  }, function () { /* no permission: the text stays selectable */ });
});

// The realtime view: <div id="realtime" data-refresh="SECONDS"> is replaced every SECONDS by
// the same element of a fresh copy of the page (same address, same cookies, so the same
// access rules). A failed fetch keeps the numbers shown and tries again at the next tick.
(function () {
  var live = document.getElementById("realtime");
  if (!live || !window.fetch || !window.DOMParser) return;
  var seconds = parseInt(live.getAttribute("data-refresh"), 10) || 10;
  var showRefreshing = function (root) {
    root.querySelectorAll(".js-only").forEach(function (el) { el.hidden = false; });
  };
  showRefreshing(live);
  setInterval(function () {
    if (document.hidden) return;
    fetch(window.location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (res) { return res.ok ? res.text() : Promise.reject(res.status); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("realtime");
        var current = document.getElementById("realtime");
        if (!fresh || !current) return;
        // Keep an open table open.
        var open = Array.prototype.map.call(current.querySelectorAll("details"), function (d) { return d.open; });
        current.replaceWith(fresh);
        fresh.querySelectorAll("details").forEach(function (d, i) { if (open[i]) d.open = true; });
        showRefreshing(fresh);
      })
      .catch(function () { /* offline or signed out: keep what is shown */ });
  }, seconds * 1000);
})();

// The snippet's options: each <input data-snippet-option="ATTRIBUTE"> ticked (or, for a text
// field, filled) adds its attribute to the tag in #snippet, which holds the plain tag first.
(function () {
  var snippet = document.getElementById("snippet");
  var options = document.querySelectorAll("[data-snippet-option]");
  if (!snippet || !options.length) return;
  var plain = snippet.textContent;
  var quote = function (v) { return v.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;"); };
  var update = function () {
    var attrs = "";
    options.forEach(function (input) {
      var name = input.getAttribute("data-snippet-option");
      if (input.type === "checkbox" && input.checked) attrs += " " + name;
      if (input.type === "text" && input.value.trim()) attrs += " " + name + '="' + quote(input.value.trim()) + '"';
    });
    snippet.textContent = plain.replace("></script>", attrs + "></script>");
  };
  options.forEach(function (input) { input.addEventListener("input", update); input.addEventListener("change", update); });
  update(); // boxes a reload kept ticked
})();
