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
   and off; Escape turns it off. It stays on from page to page (sessionStorage) until turned off.

   Teaching from it: a bar at the bottom right moves between the sections of the page (the page's title and its
   second-level sections) and between pages, and lists the sections to jump to; the keyboard does the same:
   Right / Left arrow: next / previous section (past the last section, the next page; before the first, the
   previous one); Shift + Right / Left: next / previous page. Up, Down, Page Up, Page Down and Space scroll as usual
   (a presenter's remote sends Page Up / Page Down). */
const SOLVABLE_PRESENT_KEY = "solvable-present";
function solvablePresenting() {
  return document.documentElement.classList.contains("solvable-present");
}
/* In the mode, every image loads at once (not when scrolled to, as the theme's lazy loading does): an image that
   loads later would push the section just brought to the top of the screen down. */
function solvableLoadImages() {
  document.querySelectorAll('img[loading="lazy"]').forEach((image) => { image.loading = "eager"; });
}
function solvableSetPresent(on) {
  document.documentElement.classList.toggle("solvable-present", on);
  if (on) { solvableLoadImages(); }
  try {
    if (on) { sessionStorage.setItem(SOLVABLE_PRESENT_KEY, "1"); } else { sessionStorage.removeItem(SOLVABLE_PRESENT_KEY); }
  } catch (error) { /* storage disabled: the mode lasts for this page */ }
  document.querySelectorAll(".solvable-present-button").forEach((button) => {
    button.setAttribute("aria-pressed", on ? "true" : "false");
  });
}
function solvableTogglePresent() {
  solvableSetPresent(!solvablePresenting());
}
try {
  if (sessionStorage.getItem(SOLVABLE_PRESENT_KEY) === "1") {
    document.documentElement.classList.add("solvable-present");
  }
} catch (error) { /* storage disabled */ }

/* The stops of the page: its title's section and every second-level section, in order. */
function solvableSections() {
  const article = document.querySelector(".bd-article");
  if (!article) { return []; }
  const top = article.querySelector("section");
  if (!top) { return []; }
  return [top, ...top.querySelectorAll(":scope > section")].filter((s) => s.querySelector("h1, h2"));
}
/* Index of the section at the top of the screen (the last one whose heading is in its top 15 %). */
function solvableAtBottom() {
  return window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
}
function solvableCurrentSection(sections) {
  if (solvableAtBottom() && window.scrollY > 0) { return sections.length - 1; }  // the last, too short to reach the top
  let current = 0;
  sections.forEach((section, i) => {
    if (section.getBoundingClientRect().top <= window.innerHeight * 0.15) { current = i; }
  });
  return current;
}
function solvableGoPage(direction) {
  const link = document.querySelector(direction > 0 ? "a.right-next" : "a.left-prev");
  if (link) { window.location.href = link.href; return true; }
  return false;
}
function solvableGoSection(direction) {
  const sections = solvableSections();
  if (!sections.length) { return solvableGoPage(direction); }
  if (direction > 0 && solvableAtBottom()) { return solvableGoPage(1); }  // nothing further down: the next page
  const current = solvableCurrentSection(sections);
  const atTop = sections[current].getBoundingClientRect().top > -2;
  let target = direction > 0 ? current + 1 : (atTop ? current - 1 : current);
  if (target < 0 || target >= sections.length) { return solvableGoPage(direction); }
  sections[target].scrollIntoView({ block: "start" });
  return true;
}
function solvableHeadingText(section) {
  const heading = section.querySelector("h1, h2");
  const clone = heading.cloneNode(true);
  clone.querySelectorAll(".headerlink").forEach((link) => link.remove());
  return clone.textContent.trim();
}
function solvableBuildPresentBar() {
  if (document.querySelector(".solvable-present-bar")) { return; }
  const bar = document.createElement("nav");
  bar.className = "solvable-present-bar";
  bar.setAttribute("aria-label", "Presentation: sections and pages");
  const button = (cls, label, text, action) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "solvable-present-nav " + cls;
    b.title = label;
    b.setAttribute("aria-label", label);
    b.textContent = text;
    b.addEventListener("click", action);
    return b;
  };
  bar.appendChild(button("solvable-prev-page", "Previous page (Shift + Left)", "\u21E4", () => solvableGoPage(-1)));
  bar.appendChild(button("solvable-prev-section", "Previous section (Left)", "\u2190", () => solvableGoSection(-1)));
  const contents = document.createElement("select");
  contents.className = "solvable-present-contents";
  contents.setAttribute("aria-label", "Sections of this page");
  solvableSections().forEach((section, i) => {
    const option = document.createElement("option");
    option.value = String(i);
    option.textContent = solvableHeadingText(section);
    contents.appendChild(option);
  });
  contents.addEventListener("change", () => {
    const section = solvableSections()[Number(contents.value)];
    if (section) { section.scrollIntoView({ block: "start" }); }
    contents.blur();
  });
  bar.appendChild(contents);
  bar.appendChild(button("solvable-next-section", "Next section (Right)", "\u2192", () => solvableGoSection(1)));
  bar.appendChild(button("solvable-next-page", "Next page (Shift + Right)", "\u21E5", () => solvableGoPage(1)));
  bar.appendChild(button("solvable-present-exit", "Leave presentation mode (P or Escape)", "\u2715",
    () => solvableSetPresent(false)));
  document.body.appendChild(bar);
  const sync = () => {
    const sections = solvableSections();
    if (sections.length) { contents.value = String(solvableCurrentSection(sections)); }
  };
  window.addEventListener("scroll", sync, { passive: true });
  sync();
}
document.addEventListener("DOMContentLoaded", () => {
  solvableBuildPresentBar();
  if (solvablePresenting()) { solvableLoadImages(); }
  const bar = document.querySelector(".article-header-buttons");
  if (!bar) {
    return;
  }
  const button = document.createElement("button");
  button.type = "button";
  button.className = "btn btn-sm solvable-present-button";
  button.title = "Presentation mode (P)";
  button.setAttribute("aria-label", "Presentation mode: larger text, no sidebars (key P)");
  button.setAttribute("aria-pressed", solvablePresenting() ? "true" : "false");
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
  } else if (solvablePresenting() && (event.key === "ArrowRight" || event.key === "ArrowLeft")) {
    const direction = event.key === "ArrowRight" ? 1 : -1;
    if (event.shiftKey ? solvableGoPage(direction) : solvableGoSection(direction)) {
      event.preventDefault();
      event.stopPropagation();
    }
  }
}, true);
