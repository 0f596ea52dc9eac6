/* Added to every page by _ext/solvable_site.py.

   Solutions (sphinx-exercise) are collapsed admonitions whose title, "Solution to Exercise N (...)", is mostly a link
   to the exercise. sphinx-togglebutton opens a collapsed admonition on a click of its title, but a click on the link
   inside the title reaches its handler with the link as target: it finds no button, throws
   "ReferenceError: button is not defined", and the browser follows the link instead of opening the solution. Catch
   such clicks first (capture phase): keep the page where it is and hand the click to the title itself, which opens
   or closes the solution. */
document.addEventListener(
  "click",
  (event) => {
    const title = event.target.closest ? event.target.closest(".toggle > .admonition-title, .dropdown > .admonition-title") : null;
    if (!title || event.target === title || event.target.closest(".toggle-button")) {
      return;  // the title itself or its button: sphinx-togglebutton handles these
    }
    event.preventDefault();
    event.stopPropagation();
    title.click();
  },
  true,
);

/* Display equations wider than their box scroll sideways inside it (solvable_site.css); mark them so that the CSS
   draws a cue (a shaded right edge) once MathJax has typeset the page, and again when the window is resized. */
function solvableMarkScrollingEquations() {
  document.querySelectorAll('mjx-container[display="true"]').forEach((box) => {
    box.classList.toggle("solvable-scrolls", box.scrollWidth > box.clientWidth + 1);
  });
}
window.addEventListener("load", () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    MathJax.startup.promise.then(solvableMarkScrollingEquations);
  }
});
window.addEventListener("resize", solvableMarkScrollingEquations);

/* Figures: a tap (or click) on a figure shows it at full size in an overlay that scrolls both ways, so that a
   multi-panel figure shrunk to a phone's width can still be read. A second tap, or Escape, closes it. */
function solvableCloseZoom() {
  document.querySelectorAll(".solvable-zoom").forEach((overlay) => overlay.remove());
}
document.addEventListener("click", (event) => {
  const overlay = event.target.closest ? event.target.closest(".solvable-zoom") : null;
  if (overlay) {
    solvableCloseZoom();
    return;
  }
  const image = event.target.closest ? event.target.closest(".bd-article figure img, .bd-article .cell_output img") : null;
  if (!image || image.closest(".animation")) {
    return;
  }
  const zoom = document.createElement("div");
  zoom.className = "solvable-zoom";
  zoom.setAttribute("role", "dialog");
  zoom.setAttribute("aria-label", "Figure at full size (tap to close)");
  const big = document.createElement("img");
  big.src = image.currentSrc || image.src;
  big.alt = image.alt || "";
  event.preventDefault();  // Sphinx may wrap a figure in a link to the image file
  const natural = parseFloat(image.style.width) || parseFloat(image.getAttribute("width")) || image.naturalWidth;
  big.style.width = natural > window.innerWidth ? natural + "px" : "100%";  // full size, or the whole screen
  zoom.appendChild(big);
  document.body.appendChild(zoom);
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") {
    solvableCloseZoom();
  }
});

/* Presentation mode, for a projector (solvable_site.css): one button in the page's header, or the key P, turns it on
   and off; Escape turns it off. It stays on from page to page (sessionStorage) until turned off. */
const SOLVABLE_PRESENT_KEY = "solvable-present";
function solvableSetPresent(on) {
  document.documentElement.classList.toggle("solvable-present", on);
  try {
    if (on) { sessionStorage.setItem(SOLVABLE_PRESENT_KEY, "1"); } else { sessionStorage.removeItem(SOLVABLE_PRESENT_KEY); }
  } catch (error) { /* storage disabled: the mode lasts for this page */ }
  document.querySelectorAll(".solvable-present-button").forEach((button) => {
    button.setAttribute("aria-pressed", on ? "true" : "false");
  });
}
function solvableTogglePresent() {
  solvableSetPresent(!document.documentElement.classList.contains("solvable-present"));
}
try {
  if (sessionStorage.getItem(SOLVABLE_PRESENT_KEY) === "1") {
    document.documentElement.classList.add("solvable-present");
  }
} catch (error) { /* storage disabled */ }
document.addEventListener("DOMContentLoaded", () => {
  const bar = document.querySelector(".article-header-buttons");
  if (!bar) {
    return;
  }
  const button = document.createElement("button");
  button.type = "button";
  button.className = "btn btn-sm solvable-present-button";
  button.title = "Presentation mode (P)";
  button.setAttribute("aria-label", "Presentation mode: larger text, no sidebars (key P)");
  button.setAttribute("aria-pressed", document.documentElement.classList.contains("solvable-present") ? "true" : "false");
  button.innerHTML = '<span class="btn__icon-container"><i class="fa-solid fa-person-chalkboard"></i></span>';
  button.addEventListener("click", solvableTogglePresent);
  bar.insertBefore(button, bar.firstChild);
});
// In the capture phase: before the handler above closes a full-size figure, so that Escape closes the figure first.
document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (event.ctrlKey || event.metaKey || event.altKey || (target && (target.isContentEditable ||
      /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)))) {
    return;
  }
  if (event.key === "p" || event.key === "P") {
    solvableTogglePresent();
  } else if (event.key === "Escape" && !document.querySelector(".solvable-zoom")) {
    solvableSetPresent(false);
  }
}, true);
