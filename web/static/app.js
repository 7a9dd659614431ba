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
