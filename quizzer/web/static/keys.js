// quizzer's study keys, as in the terminal: Space/Enter reveal or go on, 1-4 rate,
// u undo, b bury, s suspend. A key presses the button marked with it (data-key); keys typed
// into the answer field are the answer's.
"use strict";
document.addEventListener("keydown", function (event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  var target = event.target;
  if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
  var key = event.key === " " || event.key === "Enter" ? "reveal" : event.key.toLowerCase();
  var button = document.querySelector('[data-key="' + key + '"]');
  if (!button && key === "reveal") button = document.querySelector('[data-key="next"]');
  if (button) {
    event.preventDefault();
    button.click();
  }
});
// A form sent with no page back after a second: the server is waiting for the database (busy,
// or out of reach and tried again); the notice says so, so that the answer is not sent twice.
document.addEventListener("submit", function (event) {
  var notice = document.getElementById("waiting");
  if (!notice || String(event.target.method).toLowerCase() !== "post") return;
  setTimeout(function () { notice.hidden = false; }, 1000);
});
window.addEventListener("pageshow", function () {  // a page shown again from the back button
  var notice = document.getElementById("waiting");
  if (notice) notice.hidden = true;
});
// The answer field stays in sight above the on-screen keyboard.
document.addEventListener("focusin", function (event) {
  if (event.target && event.target.name === "answer") {
    setTimeout(function () { event.target.scrollIntoView({block: "center"}); }, 300);
  }
});
// The exam's clock: the time left, counted down; at 0 the answer as typed is sent (the server
// keeps its own deadline whatever this shows).
(function () {
  var clock = document.querySelector("[data-seconds]");
  if (!clock) return;
  var end = Date.now() + 1000 * Number(clock.getAttribute("data-seconds"));
  var tick = function () {
    var left = Math.max(0, Math.round((end - Date.now()) / 1000));
    clock.textContent = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
    if (left === 0) {
      var form = document.getElementById("exam-answer");
      if (form) form.submit();
      return;
    }
    setTimeout(tick, 1000);
  };
  tick();
})();
